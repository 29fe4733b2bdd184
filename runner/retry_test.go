package runner

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/results/rowfile"
	"github.com/llm-replay/replay/sim"
)

// Under --retries, a 429 with Retry-After is tried again after the server's hint, each
// attempt has its row (the first marked retried, with the hint), and the summary counts the
// request once, by its last attempt.
func TestRetriesHonourRetryAfter(t *testing.T) {
	sc := sim.DefaultConfig()
	sc.ZeroCost = true
	srv := sim.New(sc)
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var mu sync.Mutex
	tries := map[string]int{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		mu.Lock()
		tries[id]++
		first := tries[id] == 1
		mu.Unlock()
		if first && r.Method == http.MethodPost {
			w.Header().Set("Retry-After", "1")
			http.Error(w, `{"error":{"message":"slow down"}}`, http.StatusTooManyRequests)
			return
		}
		srv.ServeHTTP(w, r)
	}))
	defer ts.Close()
	out := t.TempDir()
	sum, err := Run(context.Background(), Config{Trace: writeSoakTrace(t, 6, 20), Client: client.Config{BaseURL: ts.URL + "/v1", Model: "replay-sim"}, Tokenizer: testenv.SampleTokenizer(), Out: out, Retries: 2, MetricsURL: "none", MinExact: anyLengths, Stdout: nopWriter{}, Stderr: nopWriter{}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Requests.Total != 6 || sum.Requests.OK != 6 || sum.Requests.Retried != 6 {
		t.Fatalf("requests %+v: want 6 total, 6 ok, 6 retried", sum.Requests)
	}
	rows, err := rowfile.ReadAll(filepath.Join(out, "requests.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(rows, func(i, j int) bool {
		return rows[i].RequestID < rows[j].RequestID || (rows[i].RequestID == rows[j].RequestID && rows[i].Attempt < rows[j].Attempt)
	})
	if len(rows) != 12 {
		t.Fatalf("%d rows, want 12 (two attempts each)", len(rows))
	}
	for i := 0; i < len(rows); i += 2 {
		a, b := rows[i], rows[i+1]
		if a.RequestID != b.RequestID || a.Attempt != 0 || !a.Retried || a.ErrorClass != "http_429" || a.RetryAfterNS != int64(time.Second) {
			t.Fatalf("first attempt %+v: want attempt 0, retried, http_429, Retry-After 1 s", a)
		}
		if b.Attempt != 1 || b.Retried || !b.OK() {
			t.Fatalf("second attempt of %s: attempt %d retried %v class %q", b.RequestID, b.Attempt, b.Retried, b.ErrorClass)
		}
		if wait := time.Duration(b.SentNS - a.DoneNS); wait < time.Second || wait > 1500*time.Millisecond {
			t.Fatalf("request %s retried %s after its 429: want the server's 1 s", a.RequestID, wait)
		}
	}
}
