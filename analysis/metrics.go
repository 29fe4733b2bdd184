package analysis

import (
	"math"

	"github.com/llm-replay/replay/results"
)

// Options are what the rows alone do not say about a run.
type Options struct {
	// Speed is the run's speed factor (scheduled offset = trace offset / Speed); 0 means 1.
	Speed float64
	// SLO, when not zero, adds goodput to the summary.
	SLO SLO
	// CostPerHour (per GPU, any currency) and GPUs, when set, add the cost per million output
	// tokens at the run's operating point to the summary. GPUs 0 means 1.
	CostPerHour float64
	GPUs        int
	// Calibration, when set, splits each TTFT into predicted prefill and queueing (queueing.go).
	Calibration *Calibration
	// ClassSLOs are the limits of each SLO class (--slo-class), by class value; a class not
	// here is judged by SLO (classes.go).
	ClassSLOs map[string]SLO
}

// Metrics aggregates result rows incrementally: Add each row as it arrives, Close once, then
// read the Summary. Percentiles come from HdrHistograms; per request it keeps only three
// numbers (scheduled and sent offsets, TTFT) for the arrival measures and the latency
// time series. Warmup rows are counted and otherwise ignored. Not safe for concurrent use.
type Metrics struct {
	opts   Options
	closed bool
	// classes and models are the per-SLO-class and per-served-model figures (classes.go),
	// nil until a row names either.
	classes, models *groupSet
	inGroup         bool // a group's own aggregation, which groups nothing

	total, ok, failed, warmup int64
	// clientFailed counts failures on this machine's own limits (class client), part of failed;
	// retried counts attempts that were tried again (their rows are not requests).
	clientFailed, retried int64
	// held counts requests the client held at its limit; backlog is how long.
	held        int64
	backlog     *latency
	errors      map[string]int64
	errorSample map[string]string

	ttft, ttftSched, itl, tpot, e2e, e2eSched, lateness, queueWait *latency
	// ttfat is the time to the first answer token (reasoning.go); reasoning the thinking.
	ttfat     *latency
	reasoning *reasoningAgg
	// queue is the TTFT split under a calibration; nil without one.
	queue *queueAgg

	// Measured span: first send to last completion of non-warmup rows.
	spanStart, spanEnd int64
	haveSpan           bool
	inputTokens        int64
	outputTokens       int64

	usageRows, promptExact, outputExact int64
	// unforcedUsage counts usage rows sent without output forcing (Row.Unforced): output
	// exactness is over the others.
	unforcedUsage                int64
	cachedTokens, reportedPrompt int64

	// cancelled counts requests cancelled as their log says (Row.CancelledAsLogged): not ok,
	// not failed. pops aggregates each population (populations.go).
	cancelled int64
	pops      map[string]*popMetrics
	apis      map[string]*popMetrics // by the API each request went to
	media     *mediaAgg              // by what the requests carried (media.go)

	// sloMet counts requests meeting each SLO limit, in sloKeys order; sloAll those meeting all.
	sloMet [5]int64
	sloAll int64
	// sloOutTokens are the output tokens of requests meeting every limit.
	sloOutTokens int64

	// sessions counts turns as they come: a session is counted at its first turn (0) and as
	// multi-turn at its second (1), so no per-session state is kept over a day-long run.
	sessions Sessions

	// sends holds every first attempt's scheduled and actual send, for the arrival measures;
	// queued counts those that waited for a concurrency slot.
	sends  []sendPoint
	queued int64
	ttftAt []ttftPoint
	// e2eUS keeps each successful request's e2e (µs) for run comparison.
	e2eUS  []uint32
	series series
	// server holds the endpoint's own queue over time, when its /metrics were scraped.
	server []ServerPoint
	gpu    []GPUPoint // GPU exporters' series (gpu_series.go), for report.html's plots

	// Derived by Close.
	arrival *Arrival
}

// ttftPoint is one request's TTFT (µs) and the second it was sent in, for latency over time.
type ttftPoint struct {
	sec uint32
	us  uint32
}

// NewMetrics returns an empty aggregation for a run with the given options.
func NewMetrics(o Options) *Metrics {
	if !(o.Speed > 0) || math.IsInf(o.Speed, 0) {
		o.Speed = 1
	}
	if o.GPUs <= 0 {
		o.GPUs = 1
	}
	return &Metrics{
		opts:        o,
		errors:      map[string]int64{},
		errorSample: map[string]string{},
		pops:        map[string]*popMetrics{},
		apis:        map[string]*popMetrics{},
		media:       newMediaAgg(),
		ttft:        newLatency(),
		ttftSched:   newLatency(),
		ttfat:       newLatency(),
		reasoning:   newReasoningAgg(),
		itl:         newLatency(),
		tpot:        newLatency(),
		e2e:         newLatency(),
		e2eSched:    newLatency(),
		lateness:    newLatency(),
		queueWait:   newLatency(),
		backlog:     newLatency(),
		queue:       newQueueAgg(o.Calibration),
	}
}

// outputTokens is what the request produced: the server's completion count when it reported one,
// else the number of content chunks seen. Deliberately not the target: a server that stopped
// early must not look fast or productive.
func outputTokens(r *results.Row) int64 {
	if r.CompletionTokens > 0 {
		return int64(r.CompletionTokens)
	}
	return int64(len(r.ChunkNS))
}

// inputTokens is the server's prompt count when reported, else the target the prompt was built to.
func inputTokens(r *results.Row) int64 {
	if r.PromptTokens >= 0 {
		return int64(r.PromptTokens)
	}
	return int64(r.TargetPromptTokens)
}

const maxErrorSample = 200

// addSession counts one non-warmup row's place in its session.
func (m *Metrics) addSession(r *results.Row) {
	if r.SessionID == "" {
		return
	}
	m.sessions.Requests++
	switch {
	case r.Turn == 0:
		m.sessions.Sessions++
	case r.Turn == 1:
		m.sessions.MultiTurn++
	}
	if r.Turn > 0 {
		m.sessions.LaterTurns++
	}
}

// Add aggregates one row. Warmup rows only count as warmup. It keeps none of the row's
// slices (LoadRows's rows may share theirs).
func (m *Metrics) Add(r *results.Row) {
	m.closed = false
	m.addGroups(r)
	if r.Warmup {
		m.warmup++
		return
	}
	if r.Attempt == 0 {
		// Sending figures hold for every request that left, failed or not, and are the
		// scheduler's: a retry's wait is not lateness.
		m.lateness.recordNS(r.SendNS() - r.ScheduledNS - r.QueueWaitNS)
		m.queueWait.recordNS(r.QueueWaitNS)
		m.sends = append(m.sends, sendPoint{sched: r.ScheduledNS, sent: r.SendNS()})
		if r.QueueWaitNS > 0 {
			m.queued++
		}
		if r.ClientBacklogNS > 0 {
			m.held++
			m.backlog.recordNS(r.ClientBacklogNS)
		}
	}
	if !r.Final() {
		m.retried++ // a later attempt has the request's outcome
		return
	}
	m.total++
	m.addSession(r)
	done := r.DoneNS
	if done < r.SentNS {
		done = r.SentNS
	}
	if !m.haveSpan || r.SentNS < m.spanStart {
		m.spanStart = r.SentNS
	}
	if !m.haveSpan || done > m.spanEnd {
		m.spanEnd = done
	}
	m.haveSpan = true
	m.series.addSend(r.ScheduledNS, r.SentNS, done)
	m.media.count(r)
	groups := m.groups(r)
	for _, p := range groups {
		p.requests++
	}
	switch {
	case r.CancelledAsLogged:
		// Cut where its client cut it: neither an answer to measure nor a failure.
		m.cancelled++
		for _, p := range groups {
			p.cancelled++
		}
	case !r.OK():
		m.addFailed(r, done)
		for _, p := range groups {
			p.failed++
		}
	default:
		out := m.addOK(r, done)
		for _, p := range groups {
			p.addOK(r, out)
		}
	}
}

// addFailed counts one failed request under its class.
func (m *Metrics) addFailed(r *results.Row, done int64) {
	m.failed++
	if r.ErrorClass == results.ClassClient {
		m.clientFailed++
	}
	m.errors[r.ErrorClass]++
	if _, ok := m.errorSample[r.ErrorClass]; !ok {
		msg := r.ErrorMessage
		if len(msg) > maxErrorSample {
			msg = msg[:maxErrorSample] + "..."
		}
		m.errorSample[r.ErrorClass] = msg
	}
	m.series.addError(done)
}

// addOK aggregates one successful request and returns its output tokens. A non-streamed one
// is measured end to end only: it enters no TTFT, ITL or TPOT distribution.
func (m *Metrics) addOK(r *results.Row, done int64) int64 {
	m.ok++
	out := outputTokens(r)
	m.inputTokens += inputTokens(r)
	m.outputTokens += out
	m.series.addCompletion(done, r.ChunkNS, out)
	m.addUsage(r)

	streamed := r.Streamed()
	hasToken := streamed && r.FirstTokenNS > 0
	var ttftSchedNS int64
	if hasToken {
		ttftNS := r.FirstTokenNS - r.SentNS
		ttftSchedNS = r.FirstTokenNS - r.ScheduledNS
		m.ttft.recordNS(ttftNS)
		m.ttftSched.recordNS(ttftSchedNS)
		m.queue.add(r, ttftNS)
		us := clampU32((ttftNS + 500) / 1000)
		sec := r.SentNS / 1e9
		if sec < 0 {
			sec = 0
		}
		if sec < maxSeriesSeconds {
			m.ttftAt = append(m.ttftAt, ttftPoint{sec: uint32(sec), us: us})
		}
	}
	m.reasoning.add(r)
	ttfatNS, ttfatSchedNS, answered := ttfatNS(r)
	if answered && streamed {
		m.ttfat.recordNS(ttfatNS)
	}
	m.e2e.recordNS(r.DoneNS - r.SentNS)
	m.e2eUS = append(m.e2eUS, clampU32((r.DoneNS-r.SentNS+500)/1000))
	m.e2eSched.recordNS(r.DoneNS - r.ScheduledNS)

	chunks := r.ChunkNS
	if !streamed {
		chunks = nil
	}
	maxGap := m.itl.recordGapsNS(chunks)
	tpotNS := int64(-1)
	if hasToken && out >= 2 && r.LastTokenNS >= r.FirstTokenNS {
		tpotNS = (r.LastTokenNS - r.FirstTokenNS) / (out - 1)
		m.tpot.recordNS(tpotNS)
	}
	if !m.opts.SLO.IsZero() {
		if !streamed {
			// The whole answer is its first token: the user sees nothing before it.
			hasToken, ttftSchedNS = true, r.DoneNS-r.ScheduledNS
		}
		if m.judge(hasToken, ttftSchedNS, answerAt{answered, ttfatSchedNS}, maxGap, len(chunks) >= 2, tpotNS, r.DoneNS-r.ScheduledNS) {
			m.sloOutTokens += out
		}
	}
	return out
}

// addUsage counts a successful request's server-reported usage for fidelity and the cache
// hit rate. Output exactness leaves out requests sent unforced, whose length is the engine's.
func (m *Metrics) addUsage(r *results.Row) {
	if r.PromptTokens < 0 {
		return
	}
	m.usageRows++
	m.reportedPrompt += int64(r.PromptTokens)
	if r.CachedTokens > 0 {
		m.cachedTokens += int64(r.CachedTokens)
	}
	if r.PromptTokens == r.TargetPromptTokens {
		m.promptExact++
	}
	switch {
	case r.Unforced:
		m.unforcedUsage++
	case r.CompletionTokens == r.TargetOutputTokens:
		m.outputExact++
	}
}

// answerAt is when a request's first answer token came, from its due time; ok false when none.
type answerAt struct {
	ok      bool
	schedNS int64
}

// judge counts one successful request against each SLO limit. A request without a token misses
// the TTFT limit; one with fewer than two chunks has no gap and so meets ITL; one without a TPOT
// (fewer than two output tokens) meets the TPOT limit, since it had no decode to be slow in.
func (m *Metrics) judge(hasToken bool, ttftSchedNS int64, answer answerAt, maxGapNS int64, hasGap bool, tpotNS, e2eSchedNS int64) (all bool) {
	s := m.opts.SLO
	met := [5]bool{
		s.TTFT == 0 || (hasToken && ttftSchedNS <= int64(s.TTFT)),
		s.TTFAT == 0 || (answer.ok && answer.schedNS <= int64(s.TTFAT)),
		s.ITL == 0 || !hasGap || maxGapNS <= int64(s.ITL),
		s.TPOT == 0 || tpotNS < 0 || tpotNS <= int64(s.TPOT),
		s.E2E == 0 || e2eSchedNS <= int64(s.E2E),
	}
	all = true
	for i, ok := range met {
		if ok {
			m.sloMet[i]++
		} else {
			all = false
		}
	}
	if all {
		m.sloAll++
	}
	return all
}

// Close derives the figures that need every row (arrival fidelity, windowed series). It may be
// called more than once; rows added after Close are taken into account by the next Close.
func (m *Metrics) Close() {
	if m.closed {
		return
	}
	m.closed = true
	m.arrival = arrival(m.sends, m.lateness.dist().P99, m.queued, m.queueWait.dist().P99)
}

// durationS is the measured span in seconds: first send to last completion.
func (m *Metrics) durationS() float64 {
	if !m.haveSpan || m.spanEnd <= m.spanStart {
		return 0
	}
	return float64(m.spanEnd-m.spanStart) / 1e9
}

// clampU32 fits a non-negative microsecond count into 32 bits (71 minutes), enough for any
// single request's latency.
func clampU32(v int64) uint32 {
	if v < 0 {
		return 0
	}
	if v > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(v)
}
