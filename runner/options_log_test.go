package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/internal/genlog"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/requestlog"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/trace"
)

// logOptionRequests is the length of the generated log TestLoggedOptionsFromLog replays.
const logOptionRequests = 240

// logMaxCalls is genlog's MaxParallelCalls for a template that refuses more calls in one
// assistant turn (Llama-3.1's: "This model only supports single tool-calls at once!").
var logMaxCalls = map[string]int{"llama3_1_tools": 1}

// TestLoggedOptionsFromLog is the send side of a request log with every option in mixed
// proportions, generated with internal/genlog and counted, as a server counts it, with each
// optionTemplates model (its chat template renders the tools and the earlier tool turns). The
// log is converted as `replay ingest --format openai-log` converts it (no text kept: tool and
// schema descriptions are synthetic text of the same token length) and replayed against a
// recording server that renders each received chat body with the same template, tools
// included, and counts it with the same tokenizer. For 100% of requests: the body carries
// exactly the record's options, field by field; the server's prompt count equals the logged
// usage.prompt_tokens (the generator's own count); rows and summary as in
// TestLoggedOptionsReplay.
//
// The log's cancellations come after up to 30 s; to keep the test short each is moved to at
// most 60 ms after its send (the record's options are changed before the replay, so the body
// and row checks judge the moved time). TestCancelledAsLogged holds their timing.
func TestLoggedOptionsFromLog(t *testing.T) {
	for _, name := range optionTemplates {
		t.Run(name, func(t *testing.T) {
			tokPath := testenv.Tokenizer(t, name)
			tok, tpl, err := requestlog.LoadModel(tokPath)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			truths, err := genlog.GenerateWith(&buf, logOptionRequests, genlog.Config{
				Seed: 3, Options: true, Chat: tpl, Tokenizer: tok, MaxParallelCalls: logMaxCalls[name]})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			logPath, converted, path := filepath.Join(dir, "gateway.jsonl"), filepath.Join(dir, "read.parquet"), filepath.Join(dir, "trace.parquet")
			if err := os.WriteFile(logPath, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := requestlog.Convert(context.Background(), requestlog.ConvertOptions{Log: logPath, Tokenizer: tokPath, Out: converted}); err != nil {
				t.Fatal(err)
			}
			recs, all := chatRecords(t, converted, path, 60)
			if all != len(truths) || len(recs) < len(truths)*3/4 {
				t.Fatalf("%d records (%d chat) of %d generated requests", all, len(recs), len(truths))
			}
			truth := func(r trace.Record) genlog.Truth { return truths[r.Line-1] }
			tools := 0
			for _, r := range recs {
				if r.PromptTokens != truth(r).PromptTokens {
					t.Fatalf("line %d: read %d prompt tokens, the generator counted %d", r.Line, r.PromptTokens, truth(r).PromptTokens)
				}
				if r.Options != nil && len(r.Options.Tools) > 0 {
					tools++
				}
			}
			if tools < 10 {
				t.Fatalf("only %d requests with tools: the test proves little", tools)
			}

			srv, _ := newOptionServer(t, name, time.Millisecond/2)
			hs := httptest.NewServer(srv)
			defer hs.Close()
			cfg := Config{Trace: path, Out: t.TempDir(), Client: client.Config{BaseURL: hs.URL + "/v1", Model: "m", API: "chat", ExtraBody: map[string]any{"ignore_eos": true}}, Tokenizer: tokPath,
				Schedule: scheduler.Config{Speed: 40}, MetricsURL: "none",
				MaxLateness: -1, Stderr: io.Discard, Stdout: io.Discard}
			sum, err := Run(context.Background(), cfg)
			if err != nil {
				rows, _ := rowfile.ReadAll(filepath.Join(cfg.Out, "requests.parquet"))
				for _, r := range rows[:min(3, len(rows))] {
					t.Logf("row %s: %s %s", r.RequestID, r.ErrorClass, r.ErrorMessage)
				}
				t.Fatal(err)
			}
			rows, err := rowfile.ReadAll(filepath.Join(cfg.Out, "requests.parquet"))
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(recs) || sum.Run.Options != OptionsLogged {
				t.Fatalf("%d rows of %d records, options %q", len(rows), len(recs), sum.Run.Options)
			}
			exact := 0
			for _, row := range rows {
				i := id(t, row)
				rec := recs[i]
				checkBody(t, i, srv.body(row.RequestID), rec.Options, rec.OutputTokens)
				checkRow(t, row, rec)
				if !row.CancelledAsLogged && int(row.PromptTokens) == truth(rec).PromptTokens {
					exact++
				}
			}
			checkPopulations(t, sum, recs)
			checkReportPopulations(t, cfg.Out, sum)
			checkNoLogText(t, buf.Bytes(), truths, srv, cfg.Out)
			cancelled := int(sum.Requests.CancelledAsLogged)
			t.Logf("%s: %d requests (%d with tools, %d cancelled as logged): the server counted the logged prompt tokens for %d of the %d not cancelled",
				name, len(rows), tools, cancelled, exact, len(rows)-cancelled)
			if exact != len(rows)-cancelled {
				t.Errorf("%d of %d prompts counted as logged", exact, len(rows)-cancelled)
			}
		})
	}
}

// checkNoLogText: the log was converted without --keep-text, so none of its text (messages,
// tool and JSON-schema descriptions and titles, enum values) reaches the server in any body, nor
// the run's outputs (summary.json, report.html, every row of requests.parquet).
//
// Only pieces found in the log's own bytes are searched for (one with a quote or a newline is
// escaped there as in any JSON output), so that a search that finds nothing means something.
func checkNoLogText(t *testing.T, log []byte, truths []genlog.Truth, srv *optionServer, out string) {
	t.Helper()
	all, _ := logTextPieces(t, truths, nil)
	pieces, descs := logTextPieces(t, truths, func(p string) bool { return bytes.Contains(log, []byte(p)) })
	if descs < 20 || len(pieces) < len(all)/2 {
		t.Fatalf("only %d of %d pieces of text (%d of descriptions) are in the log's bytes: the check proves little", len(pieces), len(all), descs)
	}
	var outputs [][]byte
	srv.mu.Lock()
	for _, b := range srv.bodies {
		outputs = append(outputs, b)
	}
	srv.mu.Unlock()
	for _, name := range []string{"summary.json", "report.html"} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		outputs = append(outputs, b)
	}
	rows, err := rowfile.ReadAll(filepath.Join(out, "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	outputs = append(outputs, b)
	for _, o := range outputs {
		for _, p := range pieces {
			if bytes.Contains(o, []byte(p)) {
				t.Fatalf("the log's text %q is in a body or an output: %.200s", p, o)
			}
		}
	}
	t.Logf("%d pieces of the log's text (%d of descriptions) in none of %d bodies and outputs", len(pieces), descs, len(outputs))
}

// logTextPieces are 12 bytes from the start, middle and end of every text of the logged
// bodies of at least 12 bytes (message contents, tool calls' arguments, descriptions, titles,
// enum values; not names, types or patterns, which are configuration and kept), and how many
// of them come from descriptions, titles and enums.
// keep, when set, says which pieces to keep.
func logTextPieces(t *testing.T, truths []genlog.Truth, keep func(string) bool) (pieces []string, descs int) {
	t.Helper()
	seen := map[string]bool{}
	// Pieces of 24 bytes: the synthetic text is made of common words too, so a shorter piece
	// (" since came ", 12 bytes) turned up in a synthesized prompt by chance.
	const n = 24
	add := func(s string, desc bool) {
		if len(s) < n {
			return
		}
		for _, at := range []int{0, len(s)/2 - n/2, len(s) - n} {
			if p := s[at : at+n]; !seen[p] && (keep == nil || keep(p)) {
				seen[p] = true
				pieces = append(pieces, p)
				if desc {
					descs++
				}
			}
		}
	}
	var walk func(v any, key string)
	walk = func(v any, key string) {
		switch x := v.(type) {
		case string:
			switch key {
			case "description", "title", "enum":
				add(x, true)
			case "content", "arguments":
				add(x, false)
			}
		case []any:
			for _, e := range x {
				walk(e, key)
			}
		case map[string]any:
			for k, e := range x {
				walk(e, k)
			}
		}
	}
	for _, tr := range truths {
		var body any
		if err := json.Unmarshal(tr.Body, &body); err != nil {
			t.Fatalf("logged body: %v", err)
		}
		walk(body, "")
	}
	return pieces, descs
}

// chatRecords copies the chat records of the trace at from to to (a run has one --api; the
// log's completions requests, each its own conversation, are left out), every logged
// cancellation moved to at most ms milliseconds after its send, and returns the records
// written and how many the trace had.
func chatRecords(t *testing.T, from, to string, ms float64) ([]trace.Record, int) {
	t.Helper()
	all, _, err := ingest.ReadAll(from, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := trace.CreateFile(to)
	if err != nil {
		t.Fatal(err)
	}
	var recs []trace.Record
	for _, r := range all {
		if r.Options == nil || r.Options.API != "chat" {
			continue
		}
		if o := r.Options; o.Cancelled && o.CancelAfterMS > ms {
			o.CancelAfterMS = ms
		}
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return recs, len(all)
}
