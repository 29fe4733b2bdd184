package live

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/llm-replay/replay/results"
)

// Config labels a run's metrics and gives the live counts only the scheduler knows.
type Config struct {
	// Endpoint, API and Shard are constant labels of every series ("" shard: not sharded).
	Endpoint, API, Shard string
	// Scheduled is how many requests the run will send.
	Scheduled int
	// Sent, InFlight, Queued and Held read the scheduler's live counters; nil reads 0.
	Sent, InFlight, Queued, Held func() int64
	// MaxErrorRate and MaxLateness judge the verdict so far, as the run's end will.
	MaxErrorRate float64
	MaxLateness  time.Duration
}

// Metrics are one run's live series in their own registry (so a test or a second run in the
// same process never sees another's).
type Metrics struct {
	reg       *prometheus.Registry
	finished  *prometheus.CounterVec
	failed    *prometheus.CounterVec
	ttft      *prometheus.HistogramVec
	itl       *prometheus.HistogramVec
	tpot      *prometheus.HistogramVec
	e2e       *prometheus.HistogramVec
	lateness  prometheus.Histogram
	backlog   prometheus.Histogram
	tokensIn  prometheus.Counter
	tokensOut prometheus.Counter
	verdict   *verdictSoFar
	mu        sync.Mutex // Observe is called from the run's one writer; the lock keeps tests honest
}

// latencyBuckets are the classic buckets (seconds) beside the native histogram: 1 ms to 5 min.
var latencyBuckets = prometheus.ExponentialBucketsRange(0.001, 300, 24)

// latenessBuckets resolve the send lateness a verdict turns on: 10 µs to 10 s.
var latenessBuckets = prometheus.ExponentialBucketsRange(1e-5, 10, 24)

// New registers a run's series.
func New(cfg Config) *Metrics {
	labels := prometheus.Labels{"endpoint": cfg.Endpoint, "api": cfg.API, "shard": cfg.Shard}
	f := factory{reg: prometheus.NewRegistry(), labels: labels}
	m := &Metrics{
		reg:       f.reg,
		finished:  f.counterVec("replay_requests_finished_total", "Requests that finished, successful or not.", "population"),
		failed:    f.counterVec("replay_requests_failed_total", "Requests that failed, by error class (client: this machine's limits, not the endpoint's).", "class"),
		ttft:      f.histogramVec("replay_ttft_seconds", "Time to first token of successful streamed requests, from the send.", latencyBuckets),
		itl:       f.histogramVec("replay_itl_seconds", "Gaps between streamed chunks of successful requests.", latencyBuckets),
		tpot:      f.histogramVec("replay_tpot_seconds", "Time per output token after the first, per successful request.", latencyBuckets),
		e2e:       f.histogramVec("replay_e2e_seconds", "Send to last byte of successful requests.", latencyBuckets),
		lateness:  f.histogram("replay_send_lateness_seconds", "How late each request left against its schedule (queue wait excluded, client backlog included).", latenessBuckets),
		backlog:   f.histogram("replay_client_backlog_seconds", "How long requests were held at the client's own in-flight limit.", latenessBuckets),
		tokensIn:  f.counter("replay_prompt_tokens_total", "Prompt tokens of successful requests, as the server reported them."),
		tokensOut: f.counter("replay_output_tokens_total", "Output tokens of successful requests, as the server reported them."),
		verdict:   newVerdictSoFar(cfg.MaxErrorRate, cfg.MaxLateness),
	}
	f.counterFunc("replay_requests_scheduled_total", "Requests the run will send.", func() int64 { return int64(cfg.Scheduled) })
	f.counterFunc("replay_requests_sent_total", "Requests that left.", cfg.Sent)
	f.gaugeFunc("replay_requests_in_flight", "Requests sent and not yet finished.", cfg.InFlight)
	f.gaugeFunc("replay_requests_queued", "Requests past their time waiting for a --max-concurrency slot.", cfg.Queued)
	f.counterFunc("replay_requests_held_total", "Requests held at the client's own in-flight limit.", cfg.Held)
	f.reg.MustRegister(m.verdict.collector(labels))
	return m
}

// Registry is what --metrics-listen serves.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Add is Observe with the row's own population, as a run's output (runner.Output).
func (m *Metrics) Add(r *results.Row) { m.Observe(r, r.Population) }

// Observe adds one finished row (warmup rows and retried attempts are not requests).
func (m *Metrics) Observe(r *results.Row, population string) {
	if r.Warmup {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if r.Attempt == 0 {
		late := seconds(r.SendNS() - r.ScheduledNS - r.QueueWaitNS)
		m.lateness.Observe(late)
		m.verdict.sent(late)
		if r.ClientBacklogNS > 0 {
			m.backlog.Observe(seconds(r.ClientBacklogNS))
		}
	}
	if r.Retried {
		return
	}
	m.finished.WithLabelValues(population).Inc()
	m.verdict.finished(r.ErrorClass)
	if !r.OK() {
		m.failed.WithLabelValues(r.ErrorClass).Inc()
		return
	}
	m.observeOK(r, population)
}

// observeOK adds a successful row's latencies and tokens.
func (m *Metrics) observeOK(r *results.Row, population string) {
	if r.FirstTokenNS > 0 {
		m.ttft.WithLabelValues(population).Observe(seconds(r.FirstTokenNS - r.SentNS))
	}
	for i := 1; i < len(r.ChunkNS); i++ {
		m.itl.WithLabelValues(population).Observe(seconds(r.ChunkNS[i] - r.ChunkNS[i-1]))
	}
	out := int64(r.CompletionTokens)
	if out < 0 {
		out = int64(len(r.ChunkNS))
	}
	if out > 1 && r.LastTokenNS > r.FirstTokenNS {
		m.tpot.WithLabelValues(population).Observe(seconds(r.LastTokenNS-r.FirstTokenNS) / float64(out-1))
	}
	m.e2e.WithLabelValues(population).Observe(seconds(r.DoneNS - r.SentNS))
	if r.PromptTokens > 0 {
		m.tokensIn.Add(float64(r.PromptTokens))
	}
	if out > 0 {
		m.tokensOut.Add(float64(out))
	}
}

func seconds(ns int64) float64 { return float64(max(ns, 0)) / 1e9 }
