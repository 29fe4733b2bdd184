package analysis

import (
	"fmt"
	"strings"
	"time"
)

// The verdicts a run ends with, first words of Summary.Verdict. The first word gives replay
// run's exit code (see its --help): valid 0, client-bound 5, not valid 6 or 7 (Judgement.Exit
// tells which), failed 3, interrupted 130; cut is a run rebuilt from its journal, partial a
// summary refreshed while the run goes.
const (
	VerdictOK          = "valid"
	VerdictNotValid    = "not valid"
	VerdictFailed      = "failed"
	VerdictClientBound = "client-bound"
	VerdictInterrupted = "interrupted"
	VerdictCut         = "cut"
	VerdictPartial     = "partial"
)

// The endpoint's state, judged from the client alone: findings about the endpoint, which set
// no exit code of their own (failing exits 3 only past --max-error-rate).
const (
	EndpointHealthy   = "healthy"
	EndpointSaturated = "saturated"
	EndpointFailing   = "failing"
)

// Exit codes of the reasons a run is not a valid measurement, and of an endpoint failing past
// --max-error-rate; when several apply the first in exitOrder is the run's.
const (
	ExitFailed      = 3
	ExitClientBound = 5
	ExitLengths     = 6
	ExitSkipped     = 7
)

var exitOrder = []int{ExitClientBound, ExitLengths, ExitSkipped, ExitFailed}

// clientBoundLine is the sentence a client-bound run must carry, word for word: whoever reads
// the figures must know they describe this machine.
const clientBoundLine = "client-bound: these figures measure the load generator, not the endpoint"

// DefaultMaxLateness is the send lateness p99 above which a run is client-bound.
const DefaultMaxLateness = 10 * time.Millisecond

// Limits are the thresholds a run is judged by (replay run's --max-error-rate,
// --max-lateness, --min-exact and --max-skip), written under run so that a rebuilt summary is
// judged the same way.
type Limits struct {
	// MaxErrorRate is the fraction of requests the endpoint may fail; client-side failures
	// are not the endpoint's and do not count.
	MaxErrorRate float64 `json:"max_error_rate"`
	// MaxLatenessMS is the highest send lateness p99 (sent - scheduled - queue wait, client
	// backlog included) at which the figures still describe the endpoint.
	MaxLatenessMS float64 `json:"max_lateness_ms"`
	// MinExact is the least share of requests (with usage) whose prompt tokens, by the
	// endpoint's own count, must equal the logged ones; nil in older files (then
	// DefaultMinExact).
	MinExact *float64 `json:"min_exact,omitempty"`
	// MaxSkip is the largest share of the log's lines that may be rejected as bad (records
	// skipped as no model request do not count); nil in older files (then DefaultMaxSkip).
	MaxSkip *float64 `json:"max_skip,omitempty"`
}

// DefaultMinExact and DefaultMaxSkip are replay run's --min-exact and --max-skip.
const (
	DefaultMinExact = 0.99
	DefaultMaxSkip  = 0.01
)

// ClientSide is what the load generator itself went through: how many requests it could
// hold, how many it held back at that limit and for how long, and how many failed on its own
// limits. Any of these growing means the run measured this machine.
type ClientSide struct {
	// Limit is the most requests in flight the client could hold (file descriptors and
	// ephemeral ports); MaxInFlight the most it had.
	Limit       int `json:"limit,omitempty"`
	MaxInFlight int `json:"max_in_flight,omitempty"`
	// Held counts requests sent late because the client was at Limit; Backlog is how late.
	Held    int64 `json:"held"`
	Backlog Dist  `json:"backlog_ms"`
	// Errors counts requests that failed on this machine's limits (class client).
	Errors int64 `json:"errors"`
}

// DefaultLimits are replay run's defaults: 10% failures, 10 ms lateness p99, 99% exact, 1%
// skipped.
func DefaultLimits() Limits {
	minExact, maxSkip := DefaultMinExact, DefaultMaxSkip
	return Limits{MaxErrorRate: 0.1, MaxLatenessMS: float64(DefaultMaxLateness) / float64(time.Millisecond),
		MinExact: &minExact, MaxSkip: &maxSkip}
}

// minExact and maxSkip are the limits' values, the defaults where an older file has none.
func (l Limits) minExact() float64 {
	if l.MinExact == nil {
		return DefaultMinExact
	}
	return *l.MinExact
}

func (l Limits) maxSkip() float64 {
	if l.MaxSkip == nil {
		return DefaultMaxSkip
	}
	return *l.MaxSkip
}

// judge sets s.Verdict and s.Judgement from the run's end and its limits.
func (s *Summary) judge(stop string) {
	lim := DefaultLimits()
	if s.Run.Limits != nil {
		lim = *s.Run.Limits
	}
	defer func() {
		if r := s.Run.Resume; r != nil {
			s.Verdict = withResume(s.Verdict, r)
		}
		if s.Run.Partial {
			s.Verdict = VerdictPartial + ": the run is still going; so far " + s.Verdict
		}
	}()
	switch {
	case s.Run.Recovered:
		s.Verdict = fmt.Sprintf("%s: the run ended before it closed; %d requests recovered from its journal", VerdictCut, s.Requests.Total)
		return
	case stop == "canceled":
		s.Verdict = fmt.Sprintf("%s: stopped with %d requests finished (%d never sent)", VerdictInterrupted, s.Requests.Total, s.Requests.NotSent)
		return
	case s.Requests.Total == 0:
		s.Verdict = VerdictFailed + ": no request was sent"
		s.Judgement = &Judgement{Endpoint: EndpointFailing, Exit: ExitFailed}
		return
	}
	j := s.judgement(lim)
	s.Judgement = j
	s.Verdict = j.line()
}

// withResume adds a resumed run's gap and its kill's losses to verdict v.
func withResume(v string, r *Resume) string {
	return v + fmt.Sprintf("; resumed after a %.1f s gap at %.1f s of the run; %d requests lost at the kill", r.GapS, r.ResumedAtS, r.LostAtKill)
}

// clientBound says why the run measured the client, "" when it did not.
func (s *Summary) clientBound(lim Limits) string {
	var why []string
	if s.Client.Errors > 0 {
		why = append(why, fmt.Sprintf("%d requests failed on this machine's own limits", s.Client.Errors))
	}
	if lim.MaxLatenessMS > 0 && s.Lateness.P99 > lim.MaxLatenessMS {
		why = append(why, fmt.Sprintf("send lateness p99 %.1f ms over --max-lateness %g ms", s.Lateness.P99, lim.MaxLatenessMS))
	}
	if len(why) > 0 && s.Client.Held > 0 {
		why = append(why, fmt.Sprintf("%d requests held at the client's limit of %d in flight", s.Client.Held, s.Client.Limit))
	}
	return strings.Join(why, "; ")
}

// endpointFailRate is the fraction of requests the endpoint failed.
func (s *Summary) endpointFailRate() float64 {
	if s.Requests.Total == 0 {
		return 0
	}
	return float64(s.Requests.Failed-s.Client.Errors) / float64(s.Requests.Total)
}

// VerdictIs reports whether a verdict line is of the given kind (one of the Verdict* names).
func VerdictIs(line, kind string) bool {
	return line == kind || strings.HasPrefix(line, kind+":") || strings.HasPrefix(line, kind+";")
}
