package runner

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/sim"
)

// Each request carries a traceparent naming its row's trace_id; two runs of one trace get
// different trace ids (a fresh run id each); --trace-context off sends none and leaves the
// column empty.
func TestTraceContext(t *testing.T) {
	var arrivals bytes.Buffer
	url, stop, err := sim.ListenLogging(context.Background(), "127.0.0.1:0", fastSim(), &arrivals)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(edit func(*Config)) map[string]string {
		_, out, _ := engineRun(t, url, 12, func(c *Config) {
			c.Client.Model = "replay-sim" // the simulator's listed model: the preflight refuses others
			if edit != nil {
				edit(c)
			}
		})
		rows, err := rowfile.ReadAll(filepath.Join(out, runfolder.Requests))
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, r := range rows {
			m[r.RequestID] = r.TraceID
		}
		return m
	}
	first, second := ids(nil), ids(nil)
	off := ids(func(c *Config) { c.Telemetry.NoTraceContext = true })
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(arrivals.String()), "\n") {
		if f := strings.Split(line, "\t"); len(f) == 4 && f[3] != "-" {
			seen[strings.Split(f[3], "-")[1]] = true
		}
	}
	for id, tid := range first {
		if len(tid) != 32 || !seen[tid] || second[id] == tid || !seen[second[id]] || off[id] != "" {
			t.Errorf("request %s: trace ids %q, %q (off: %q); seen by the server: %v, %v", id, tid, second[id], off[id], seen[tid], seen[second[id]])
		}
	}
	if len(seen) != 2*len(first) {
		t.Errorf("the server saw %d traceparents, want %d (two runs; none with --trace-context off)", len(seen), 2*len(first))
	}
}
