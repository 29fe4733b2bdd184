package shard

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/report"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
)

// testStart is the shared --start-at of the test runs.
var testStart = time.Date(2026, 3, 1, 12, 0, 0, 500_000_000, time.UTC)

// testTrace is the identity of the test runs' trace.
var testTrace = IdentityOfBytes("test.jsonl", []byte("the test trace\n"))

// runRows makes a seeded run's measured rows, in schedule order: Poisson arrivals at rate
// per second, every third request a turn of one of a few dozen sessions, lognormal TTFT,
// a few failures and a few retried attempts. Row i has request id i, as the runner names
// them.
func runRows(n int, seed uint64, rate float64) []results.Row {
	rng := rand.New(rand.NewPCG(seed, 0x5ea7))
	rows := make([]results.Row, 0, n)
	turns := map[string]int32{}
	var t float64
	for i := 0; i < n; i++ {
		t += rng.ExpFloat64() / rate
		r := answered(rng, fmt.Sprint(i), int64(t*1e9))
		if i%3 == 0 {
			r.SessionID = fmt.Sprintf("s%d", rng.IntN(40))
			r.Turn = turns[r.SessionID]
			turns[r.SessionID]++
		}
		if rng.Float64() < 0.03 {
			r.ErrorClass, r.ErrorMessage, r.HTTPStatus = "http_5xx", "synthetic 503", 503
			r.FirstTokenNS, r.LastTokenNS, r.ChunkNS = 0, 0, nil
			r.PromptTokens, r.CompletionTokens = -1, -1
		}
		if rng.Float64() < 0.02 { // a first attempt that failed and was retried
			a := r
			a.Retried, a.ErrorClass, a.HTTPStatus = true, "http_429", 429
			a.FirstTokenNS, a.LastTokenNS, a.ChunkNS = 0, 0, nil
			r.Attempt = 1
			rows = append(rows, a)
		}
		rows = append(rows, r)
	}
	return rows
}

// answered is a successful streamed row of request id, due at sched.
func answered(rng *rand.Rand, id string, sched int64) results.Row {
	sent := sched + int64(rng.IntN(400_000))
	out := 2 + rng.IntN(40)
	chunks := make([]int64, out)
	c := sent + int64(80e6*math.Exp(0.5*rng.NormFloat64()))
	for k := range chunks {
		if k > 0 {
			c += int64(20e6 * math.Exp(0.3*rng.NormFloat64()))
		}
		chunks[k] = c
	}
	prompt := int32(100 + rng.IntN(2000))
	return results.Row{RequestID: id, OriginalTimestampNS: sched, ScheduledNS: sched, SentNS: sent,
		FirstTokenNS: chunks[0], LastTokenNS: chunks[out-1], DoneNS: chunks[out-1] + 100_000, ChunkNS: chunks,
		TargetPromptTokens: prompt, TargetOutputTokens: int32(out), PromptTokens: prompt,
		CompletionTokens: int32(out), HTTPStatus: 200, Endpoint: "sim", Population: "stream/plain"}
}

// splitShards splits measured rows as scheduler's shard does the items they were sent for:
// a session's turns by a hash of its id, any other request round robin by its position in
// the schedule (a request's attempts all go with it). Each shard's rows keep their order.
func splitShards(rows []results.Row, n int) [][]results.Row {
	shards := make([][]results.Row, n)
	pos := -1
	for i, r := range rows {
		if i == 0 || r.RequestID != rows[i-1].RequestID {
			pos++
		}
		owner := pos % n
		if r.SessionID != "" {
			h := fnv.New64a()
			h.Write([]byte(r.SessionID))
			owner = int(h.Sum64() % uint64(n))
		}
		shards[owner] = append(shards[owner], r)
	}
	return shards
}

// shardRun is what a test shard's folder is written from.
type shardRun struct {
	info    Info
	rows    []results.Row
	warmup  int                   // warmup rows written first, ids warmup-0.. on every shard alike
	notSent int64                 // the shard's requests.not_sent
	cal     *analysis.Calibration // the run's --calibration, nil for none
}

// writeShard writes a shard's folder as a sharded run leaves it: shard.json, then its rows
// (warmup first), then summary.json and report.html from them.
func writeShard(t *testing.T, dir string, sr shardRun) {
	t.Helper()
	if err := WriteInfo(dir, sr.info); err != nil {
		t.Fatal(err)
	}
	w, err := rowfile.NewWriter(filepath.Join(dir, runfolder.Requests))
	if err != nil {
		t.Fatal(err)
	}
	m := analysis.NewMetrics(analysis.Options{Speed: 1, Calibration: sr.cal})
	for i := 0; i < sr.warmup; i++ {
		r := results.Row{RequestID: fmt.Sprintf("warmup-%d", i), Warmup: true, HTTPStatus: 200}
		m.Add(&r)
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range sr.rows {
		m.Add(&r)
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	info := analysis.RunInfo{Endpoint: "http://127.0.0.1:1/v1", Model: "test", Speed: 1, Version: sr.info.Version,
		StartedAt: sr.info.StartAt, Stop: "completed", NotSent: sr.notSent, Trace: sr.info.Trace.Name}
	if _, err := report.WriteRunFiles(dir, m, info); err != nil {
		t.Fatal(err)
	}
}

// shardInfo is shard k of n of the test trace, from testStart.
func shardInfo(k, n int) Info {
	return Info{Shard: k, Shards: n, StartAt: testStart, Trace: testTrace, Schedule: "speed=1", Version: "test"}
}

// writeShards writes rows split into n shard folders under a temporary folder, each with one
// warmup row, and returns the folders in order of K.
func writeShards(t *testing.T, rows []results.Row, n int) []string {
	t.Helper()
	root := t.TempDir()
	var dirs []string
	for k, rs := range splitShards(rows, n) {
		d := filepath.Join(root, fmt.Sprintf("shard-%d", k))
		writeShard(t, d, shardRun{info: shardInfo(k, n), rows: rs, warmup: 1})
		dirs = append(dirs, d)
	}
	return dirs
}

// rowKey is a row's identity within a run: its request and attempt.
type rowKey struct {
	id      string
	attempt int32
}

// sameRows fails unless got holds exactly want's rows, each once, field for field (order
// aside). The 4-process end-to-end test compares a merge with a single-process run this way,
// on request ids and attempts.
func sameRows(t *testing.T, got, want []results.Row) {
	t.Helper()
	index := func(rows []results.Row) map[rowKey]results.Row {
		m := map[rowKey]results.Row{}
		for _, r := range rows {
			k := rowKey{r.RequestID, r.Attempt}
			if _, dup := m[k]; dup {
				t.Fatalf("request %s attempt %d is there twice", r.RequestID, r.Attempt)
			}
			if len(r.ChunkNS) == 0 {
				r.ChunkNS = nil // a file gives back empty lists; compare them as none
			}
			m[k] = r
		}
		return m
	}
	g, w := index(got), index(want)
	for k, wr := range w {
		gr, ok := g[k]
		if !ok {
			t.Fatalf("request %s attempt %d is missing", k.id, k.attempt)
		}
		if fmt.Sprint(gr) != fmt.Sprint(wr) {
			t.Fatalf("request %s attempt %d differs:\n got %+v\nwant %+v", k.id, k.attempt, gr, wr)
		}
	}
	if len(g) != len(w) {
		t.Fatalf("%d rows, want %d", len(g), len(w))
	}
}

// measured drops warmup rows.
func measured(rows []results.Row) []results.Row {
	var out []results.Row
	for _, r := range rows {
		if !r.Warmup {
			out = append(out, r)
		}
	}
	return out
}

// ids is the sorted distinct request ids of rows.
func ids(rows []results.Row) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rows {
		if !seen[r.RequestID] {
			seen[r.RequestID] = true
			out = append(out, r.RequestID)
		}
	}
	sort.Strings(out)
	return out
}
