package otlp

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/telemetry"
)

// TestCollectorRoundTrip is e2e/otel/e2e.sh's checker, run when REPLAY_OTEL_E2E names its
// folder: run/requests.parquet (a replay run with --otlp-endpoint at a real Collector),
// spans.jsonl (the Collector's file exporter's output, the Collector stopped) and arrivals.tsv
// (replay sim --arrival-log). The Collector's file must hold exactly one span per row, each
// with the row's trace id, token counts and the GenAI attribute names; the server must have
// seen each request's traceparent; and --format otlp must read the file back as the rows:
// the same starts (relative) and token counts, every one.
func TestCollectorRoundTrip(t *testing.T) {
	dir := os.Getenv("REPLAY_OTEL_E2E")
	if dir == "" {
		t.Skip("REPLAY_OTEL_E2E is not set (e2e/otel/e2e.sh sets it)")
	}
	rows, err := rowfile.ReadAll(filepath.Join(dir, "run", "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	byTrace := map[string]*results.Row{}
	for i := range rows {
		r := &rows[i]
		if len(r.TraceID) != 32 || strings.ToLower(r.TraceID) != r.TraceID || !r.OK() || r.Warmup {
			t.Fatalf("row %s: trace_id %q, error %q, warmup %v", r.RequestID, r.TraceID, r.ErrorClass, r.Warmup)
		}
		if _, err := hex.DecodeString(r.TraceID); err != nil || byTrace[r.TraceID] != nil {
			t.Fatalf("row %s: trace_id %q not hex or not unique", r.RequestID, r.TraceID)
		}
		byTrace[r.TraceID] = r
	}
	spans := collectorSpans(t, filepath.Join(dir, "spans.jsonl"))
	if len(spans) != len(rows) {
		t.Fatalf("the Collector's file holds %d spans, the run %d rows", len(spans), len(rows))
	}
	for _, s := range spans {
		checkSpan(t, s, byTrace)
	}
	checkArrivals(t, filepath.Join(dir, "arrivals.tsv"), rows)
	checkReadBack(t, filepath.Join(dir, "spans.jsonl"), rows)
	t.Logf("%d rows: %d spans in the Collector's file, each with its row's trace id and counts; %d traceparents seen by the server; %d records read back, starts and counts equal", len(rows), len(spans), len(rows), len(rows))
}

// jsonSpan is a span of the Collector's JSON as the OTLP spec writes it (ids in hex), read with
// encoding/json so the check does not lean on the reader it checks.
type jsonSpan struct {
	TraceID    string `json:"traceId"`
	SpanID     string `json:"spanId"`
	Name       string `json:"name"`
	Start      string `json:"startTimeUnixNano"`
	End        string `json:"endTimeUnixNano"`
	Attributes []struct {
		Key   string                     `json:"key"`
		Value map[string]json.RawMessage `json:"value"`
	} `json:"attributes"`
}

func collectorSpans(t *testing.T, path string) []jsonSpan {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []jsonSpan
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		var req struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []jsonSpan `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				out = append(out, ss.Spans...)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func checkSpan(t *testing.T, s jsonSpan, byTrace map[string]*results.Row) {
	t.Helper()
	r := byTrace[s.TraceID]
	if r == nil {
		t.Fatalf("span %s/%s names no row's trace id", s.TraceID, s.SpanID)
	}
	var tid [16]byte
	_, _ = hex.Decode(tid[:], []byte(s.TraceID))
	want := telemetry.SpanID(tid, 0)
	if s.SpanID != hex.EncodeToString(want[:]) {
		t.Errorf("row %s: span id %s, its traceparent named %x", r.RequestID, s.SpanID, want)
	}
	a := map[string]string{}
	for _, kv := range s.Attributes {
		for _, v := range kv.Value {
			a[kv.Key] = strings.Trim(string(v), `"`)
		}
	}
	for _, k := range []string{"gen_ai.operation.name", "gen_ai.request.model", "gen_ai.request.max_tokens", "gen_ai.response.finish_reasons", "replay.ttft_s", "replay.lateness_s"} {
		if a[k] == "" {
			t.Errorf("row %s: span without %s", r.RequestID, k)
		}
	}
	if a["gen_ai.usage.input_tokens"] != strconv.Itoa(int(r.PromptTokens)) || a["gen_ai.usage.output_tokens"] != strconv.Itoa(int(r.CompletionTokens)) {
		t.Errorf("row %s (%d in, %d out): span says %s in, %s out", r.RequestID, r.PromptTokens, r.CompletionTokens, a["gen_ai.usage.input_tokens"], a["gen_ai.usage.output_tokens"])
	}
	if s.Name != a["gen_ai.operation.name"]+" "+a["gen_ai.request.model"] {
		t.Errorf("row %s: span name %q", r.RequestID, s.Name)
	}
	start, _ := strconv.ParseInt(s.Start, 10, 64)
	end, _ := strconv.ParseInt(s.End, 10, 64)
	if end-start != r.DoneNS-r.SentNS {
		t.Errorf("row %s: span lasts %d ns, the row %d", r.RequestID, end-start, r.DoneNS-r.SentNS)
	}
}

// checkArrivals: the server's log holds each request once, with the traceparent of its row.
func checkArrivals(t *testing.T, path string, rows []results.Row) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("%s: line %q", path, line)
		}
		seen[f[1]] = f[3]
	}
	for _, r := range rows {
		var tid [16]byte
		_, _ = hex.Decode(tid[:], []byte(r.TraceID))
		sid := telemetry.SpanID(tid, int(r.Attempt))
		if want := fmt.Sprintf("00-%s-%x-01", r.TraceID, sid); seen[r.RequestID] != want {
			t.Errorf("request %s: the server saw traceparent %q, want %q", r.RequestID, seen[r.RequestID], want)
		}
	}
}

// checkReadBack: --format otlp reads the Collector's file as the rows: one record per row,
// each record's start from the first the row's send from the first, and its counts the row's.
func checkReadBack(t *testing.T, path string, rows []results.Row) {
	t.Helper()
	recs, counts := readAll(t, path, ingest.Options{})
	if len(recs) != len(rows) || counts.Skipped != 0 || counts.Rejected != 0 {
		t.Fatalf("read back %d records (%+v) of %d rows", len(recs), counts, len(rows))
	}
	first := slices.MinFunc(rows, func(a, b results.Row) int { return int(a.SentNS - b.SentNS) }).SentNS
	key := func(offset int64, in, out int) string { return fmt.Sprintf("%d/%d/%d", offset, in, out) }
	var want, got []string
	for _, r := range rows {
		want = append(want, key(r.SentNS-first, int(r.PromptTokens), int(r.CompletionTokens)))
	}
	for _, rec := range recs {
		got = append(got, key(int64(rec.Timestamp), rec.PromptTokens, rec.OutputTokens))
	}
	slices.Sort(want)
	slices.Sort(got)
	for i := range want {
		if want[i] != got[i] {
			t.Fatalf("record %d (offset/in/out) %s, the rows' %s", i, got[i], want[i])
		}
	}
}
