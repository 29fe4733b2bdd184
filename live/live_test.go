package live

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/results"
)

// rows makes n invented rows: a few percent failed, TTFTs spread over two decades.
func rows(n int) []results.Row {
	rng := rand.New(rand.NewPCG(7, 9))
	out := make([]results.Row, n)
	for i := range out {
		sched := int64(i) * 1e6
		sent := sched + rng.Int64N(200_000)
		ttft := int64(math.Exp(rng.Float64()*4.6) * 5e6) // 5 ms to 500 ms
		r := results.Row{RequestID: fmt.Sprint(i), ScheduledNS: sched, SentNS: sent, FirstTokenNS: sent + ttft,
			PromptTokens: 100, CompletionTokens: 4, TargetPromptTokens: 100, TargetOutputTokens: 4, HTTPStatus: 200}
		for k := range 4 {
			r.ChunkNS = append(r.ChunkNS, r.FirstTokenNS+int64(k)*20e6)
		}
		r.LastTokenNS = r.ChunkNS[3]
		r.DoneNS = r.LastTokenNS + 1e6
		if i%29 == 0 {
			r = results.Row{RequestID: r.RequestID, ScheduledNS: sched, SentNS: sent, DoneNS: sent + 1e6,
				HTTPStatus: 500, ErrorClass: "http_5xx", PromptTokens: -1, CompletionTokens: -1, CachedTokens: -1}
		}
		out[i] = r
	}
	return out
}

func gather(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		byName[f.GetName()] = f
	}
	return byName
}

func sum(f *dto.MetricFamily) float64 {
	var s float64
	for _, m := range f.GetMetric() {
		s += m.GetCounter().GetValue()
	}
	return s
}

// The live series end where the summary does: the same finished and failed counts, a TTFT
// histogram holding every ok request, and its quantiles within a bucket of the summary's.
func TestAgreesWithSummary(t *testing.T) {
	rs := rows(3000)
	m := New(Config{Endpoint: "e", API: "chat", Scheduled: len(rs), MaxErrorRate: 0.1, MaxLateness: 10 * time.Millisecond})
	agg := analysis.NewMetrics(analysis.Options{})
	for i := range rs {
		m.Observe(&rs[i], "stream/plain")
		agg.Add(&rs[i])
	}
	s := agg.Summary(analysis.RunInfo{})
	fams := gather(t, m)
	if got := sum(fams["replay_requests_finished_total"]); got != float64(s.Requests.Total) {
		t.Fatalf("finished %v, summary total %d", got, s.Requests.Total)
	}
	if got := sum(fams["replay_requests_failed_total"]); got != float64(s.Requests.Failed) {
		t.Fatalf("failed %v, summary failed %d", got, s.Requests.Failed)
	}
	h := fams["replay_ttft_seconds"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != uint64(s.TTFT.Count) || h.GetSampleCount() != uint64(s.Requests.OK) {
		t.Fatalf("TTFT histogram holds %d, summary TTFT %d, ok %d", h.GetSampleCount(), s.TTFT.Count, s.Requests.OK)
	}
	for _, q := range []struct {
		p    float64
		want float64
	}{{0.5, s.TTFT.P50}, {0.95, s.TTFT.P95}, {0.99, s.TTFT.P99}} {
		lo, hi := bucketAround(h, q.p)
		if want := q.want / 1000; want < lo*0.999 || want > hi*1.001 {
			t.Errorf("TTFT p%g: summary %.4f s, histogram bucket [%.4f, %.4f]", q.p*100, want, lo, hi)
		}
	}
	if v := verdictOf(fams); v != "ok" {
		t.Errorf("verdict so far %q, summary %q", v, s.Verdict)
	}
}

// bucketAround is the classic bucket [lower, upper] holding quantile p.
func bucketAround(h *dto.Histogram, p float64) (float64, float64) {
	rank := uint64(math.Ceil(p * float64(h.GetSampleCount())))
	lo := 0.0
	for _, b := range h.GetBucket() {
		if b.GetCumulativeCount() >= rank {
			return lo, b.GetUpperBound()
		}
		lo = b.GetUpperBound()
	}
	return lo, math.Inf(1)
}

func verdictOf(fams map[string]*dto.MetricFamily) string {
	for _, m := range fams["replay_verdict"].GetMetric() {
		if m.GetGauge().GetValue() == 1 {
			for _, l := range m.GetLabel() {
				if l.GetName() == "verdict" {
					return l.GetValue()
				}
			}
		}
	}
	return ""
}

// Late sends or client-class failures turn the verdict so far client-bound.
func TestVerdictSoFar(t *testing.T) {
	rs := rows(200)
	m := New(Config{MaxErrorRate: 0.1, MaxLateness: 10 * time.Millisecond})
	for i := range rs {
		if i%10 == 0 {
			rs[i].SentNS += 50e6 // 10% of sends 50 ms late: p99 over 10 ms
		}
		m.Observe(&rs[i], "stream/plain")
	}
	if v := verdictOf(gather(t, m)); v != "client-bound" {
		t.Fatalf("verdict %q, want client-bound", v)
	}
	m = New(Config{MaxErrorRate: 0.01, MaxLateness: 10 * time.Millisecond})
	for i := range rs[:100] {
		r := rs[i]
		r.SentNS = r.ScheduledNS
		m.Observe(&r, "stream/plain")
	}
	if v := verdictOf(gather(t, m)); v != "failed" { // 4 of 100 failed, over 1%
		t.Fatalf("verdict %q, want failed", v)
	}
}

// Scraped over HTTP while rows arrive, no counter ever goes down.
func TestServeCountersNeverDecrease(t *testing.T) {
	rs := rows(5000)
	m := New(Config{Endpoint: "e", Scheduled: len(rs)})
	addr, stop, err := Serve(context.Background(), "127.0.0.1:0", 0, m)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range rs {
			m.Observe(&rs[i], "stream/plain")
			if i%500 == 0 {
				time.Sleep(2 * time.Millisecond)
			}
		}
	}()
	last := map[string]float64{}
	for k := 0; k < 30; k++ {
		for name, v := range scrapeCounters(t, "http://"+addr+"/metrics") {
			if v < last[name] {
				t.Fatalf("%s went down from %v to %v", name, last[name], v)
			}
			last[name] = v
		}
		time.Sleep(3 * time.Millisecond)
	}
	wg.Wait()
	if got := scrapeCounters(t, "http://"+addr+"/metrics")["replay_requests_finished_total"]; got != float64(len(rs)) {
		t.Fatalf("finished %v after all rows, want %d", got, len(rs))
	}
}

// scrapeCounters reads every counter of a text exposition, summed over its series.
func scrapeCounters(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	dec := expfmt.NewDecoder(strings.NewReader(string(b)), expfmt.NewFormat(expfmt.TypeTextPlain))
	out := map[string]float64{}
	for {
		var f dto.MetricFamily
		if err := dec.Decode(&f); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatalf("parsing /metrics: %v", err)
		}
		if f.GetType() == dto.MetricType_COUNTER {
			out[f.GetName()] = sum(&f)
		}
	}
}

// Two runs' series on one page (a paired run's endpoints): each family once, each endpoint's
// series under its own label with its own counts, fed through Add with the rows' populations.
func TestServeSeveralEndpoints(t *testing.T) {
	rs := rows(200)
	a, b := New(Config{Endpoint: "a", Scheduled: len(rs)}), New(Config{Endpoint: "b", Scheduled: len(rs)})
	for i := range rs {
		rs[i].Population = "stream/plain"
		a.Add(&rs[i])
		if i%2 == 0 {
			b.Add(&rs[i])
		}
	}
	addr, stop, err := Serve(context.Background(), "127.0.0.1:0", 0, a, b)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || strings.Count(string(body), "# TYPE replay_requests_finished_total ") != 1 {
		t.Fatalf("status %d, page:\n%s", resp.StatusCode, body)
	}
	for label, want := range map[string]int{"a": len(rs), "b": len(rs) / 2} {
		line := fmt.Sprintf(`replay_requests_finished_total{api="",endpoint=%q,population="stream/plain",shard=""} %d`, label, want)
		if !strings.Contains(string(body), line) {
			t.Errorf("no %q on the page:\n%s", line, body)
		}
	}
}
