package gen

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/trace"
)

func jsonl(t *testing.T, cfg Config) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteJSONL(&b, cfg); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestDeterministic: the same Config gives the same bytes, another seed (0 included, which is
// a seed of its own) or shape other bytes, and the zero Config is Default but for its seed.
func TestDeterministic(t *testing.T) {
	cfg := Config{Shape: "mixed", Duration: 10 * time.Minute, Seed: 7}
	a, b := jsonl(t, cfg), jsonl(t, cfg)
	if !bytes.Equal(a, b) {
		t.Fatal("two runs of one Config differ")
	}
	seen := map[string]uint64{string(a): 7}
	for _, seed := range []uint64{0, 1, 8} {
		c := cfg
		c.Seed = seed
		out := string(jsonl(t, c))
		if prev, dup := seen[out]; dup {
			t.Fatalf("seeds %d and %d give the same trace", prev, seed)
		}
		seen[out] = seed
	}
	if !bytes.Equal(jsonl(t, Config{Seed: 1}), jsonl(t, Default())) {
		t.Error("Config{Seed: 1} is not Default()")
	}
	if bytes.Equal(jsonl(t, Config{Shape: "chat", Seed: 7}), jsonl(t, Config{Shape: "agent", Seed: 7})) {
		t.Error("chat and agent give the same trace")
	}
}

// TestIngestRoundTrip reads the written file back through ingest (auto-detected as Mooncake,
// and at a non-default block size with an explicit format) and wants Records' own values,
// field by field. Source differs by design: ingest names the file, Records "gen:SHAPE:seedN".
func TestIngestRoundTrip(t *testing.T) {
	cases := []struct {
		cfg  Config
		opts ingest.Options
	}{
		{Config{Duration: 15 * time.Minute, Seed: 3}, ingest.Options{}},
		{Config{Shape: "agent", Duration: 5 * time.Minute, Seed: 4, BlockSize: 64}, ingest.Options{Format: ingest.FormatMooncake, BlockSize: 64}},
	}
	for _, c := range cases {
		want, err := Records(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "gen.jsonl")
		if err := os.WriteFile(path, jsonl(t, c.cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		got, counts, err := ingest.ReadAll(path, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || counts.Rejected != 0 || counts.HashMismatches != 0 {
			t.Fatalf("%+v: ingested %d records (%+v), generated %d", c.cfg, len(got), counts, len(want))
		}
		sessions := 0
		for i := range want {
			w, g := want[i], got[i]
			if w.Source != fmt.Sprintf("gen:%s:seed%d", cmp.Or(c.cfg.Shape, "mixed"), c.cfg.Seed) || g.Source != path {
				t.Fatalf("record %d: sources %q and %q", i, w.Source, g.Source)
			}
			w.Source, g.Source = "", ""
			if !reflect.DeepEqual(w, g) {
				t.Fatalf("record %d:\n generated %+v\n ingested  %+v", i, w, g)
			}
			if w.SessionID != "" {
				sessions++
			}
		}
		if sessions == 0 {
			t.Fatalf("%+v: no session turns to round-trip", c.cfg)
		}
	}
}

// TestBlockStructure holds every shape to the Mooncake conventions the replay relies on:
// ceil(prompt/block) ids; ids numbered 0, 1, 2... in order of first appearance; an id always
// after the same predecessor (prefix-chained); a session's turn n+1 starting with turn n's
// full blocks, later in time; turns 0..n; time order; prompts under the cap.
func TestBlockStructure(t *testing.T) {
	for _, shape := range Shapes {
		recs, err := Records(Config{Shape: shape, Duration: 20 * time.Minute, Seed: 5, BlockSize: 128})
		if err != nil {
			t.Fatal(err)
		}
		checkBlocks(t, shape, recs)
		checkSessions(t, shape, recs)
	}
}

func checkBlocks(t *testing.T, shape string, recs []trace.Record) {
	t.Helper()
	pred := map[uint64]int64{}
	var next uint64
	for i, r := range recs {
		if n := (r.PromptTokens + 127) / 128; len(r.BlockHashes) != n || r.BlockSize != 128 || r.PromptTokens > maxPrompt || r.OutputTokens < 1 {
			t.Fatalf("%s record %d: %d tokens, %d ids, block size %d, output %d", shape, i, r.PromptTokens, len(r.BlockHashes), r.BlockSize, r.OutputTokens)
		}
		if i > 0 && r.Timestamp < recs[i-1].Timestamp || r.Timestamp%time.Millisecond != 0 || r.Line != int64(i+1) {
			t.Fatalf("%s record %d: at %v after %v, line %d", shape, i, r.Timestamp, recs[max(i-1, 0)].Timestamp, r.Line)
		}
		prev := int64(-1)
		for _, h := range r.BlockHashes {
			switch p, ok := pred[h]; {
			case !ok && h != next:
				t.Fatalf("%s record %d: new id %d, want %d", shape, i, h, next)
			case !ok:
				pred[h] = prev
				next++
			case p != prev:
				t.Fatalf("%s record %d: id %d after %d, earlier after %d", shape, i, h, prev, p)
			}
			prev = int64(h)
		}
	}
	if recs[0].Timestamp != 0 {
		t.Errorf("%s: first record at %v", shape, recs[0].Timestamp)
	}
}

func checkSessions(t *testing.T, shape string, recs []trace.Record) {
	t.Helper()
	last := map[string]trace.Record{}
	for i, r := range recs {
		if r.SessionID == "" {
			if r.Turn != 0 {
				t.Fatalf("%s record %d: turn %d without a session", shape, i, r.Turn)
			}
			continue
		}
		p, ok := last[r.SessionID]
		switch {
		case !ok && r.Turn != 0, ok && r.Turn != p.Turn+1:
			t.Fatalf("%s record %d: session %s turn %d after turn %d", shape, i, r.SessionID, r.Turn, p.Turn)
		case ok && (r.Timestamp <= p.Timestamp || !slices.Equal(r.BlockHashes[:p.PromptTokens/128], p.BlockHashes[:p.PromptTokens/128])):
			t.Fatalf("%s record %d: turn %d does not extend turn %d's prompt later in time", shape, i, r.Turn, p.Turn)
		}
		last[r.SessionID] = r
	}
	if (shape == "code") != (len(last) == 0) {
		t.Errorf("%s: %d sessions", shape, len(last))
	}
}

// TestInvalidConfig: each bad field is an error that names it and its flag.
func TestInvalidConfig(t *testing.T) {
	cases := []struct {
		cfg  Config
		want string
	}{
		{Config{Shape: "batch"}, "--shape"},
		{Config{Rate: -1}, "--rate"},
		{Config{Rate: math.NaN()}, "--rate"},
		{Config{Rate: math.Inf(1)}, "--rate"},
		{Config{Duration: -time.Second}, "--duration"},
		{Config{BlockSize: -16}, "--block-size"},
		{Config{Rate: 3000, Duration: 24 * time.Hour}, "more than"},
		{Config{Duration: time.Microsecond, Rate: 0.001}, "no request"},
	}
	for _, c := range cases {
		_, err := Records(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one naming %q", c.cfg, err, c.want)
		}
		if err := WriteJSONL(&bytes.Buffer{}, c.cfg); err == nil {
			t.Errorf("%+v: WriteJSONL accepted it", c.cfg)
		}
	}
}

// TestDefault: the default trace, the one the runner replays at 4x, has sessions and shared
// prefixes, and takes milliseconds.
func TestDefault(t *testing.T) {
	start := time.Now()
	recs, err := Records(Default())
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(recs)
	t.Logf("Records(Default()) in %v: %v", took, s)
	if s.Records < 200 || s.Sessions < 10 || s.MultiTurn < 0.1 || s.IdealHit < 0.3 || s.Span < 100 || s.Span > 120 {
		t.Errorf("default trace: %v", s)
	}
	if !strings.Contains(s.String(), "ideal prefix hit rate") {
		t.Errorf("summary %q", s)
	}
}

// TestSessionIDEscaping: a session id that is not plain [a-z0-9-] (from records WriteRecords
// did not generate) is still valid JSON and reads back as itself.
func TestSessionIDEscaping(t *testing.T) {
	id := "chat \"1\"\n\\ <é>"
	var b bytes.Buffer
	recs := []trace.Record{{PromptTokens: 3, OutputTokens: 1, BlockHashes: []uint64{0}, SessionID: id, Turn: 2}}
	if err := WriteRecords(&b, recs); err != nil {
		t.Fatal(err)
	}
	var l struct {
		SessionID string `json:"session_id"`
		Turn      int    `json:"turn"`
	}
	if err := json.Unmarshal(b.Bytes(), &l); err != nil || l.SessionID != id || l.Turn != 2 {
		t.Fatalf("%s: %v, %+v", b.Bytes(), err, l)
	}
}
