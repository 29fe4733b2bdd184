package analysis

import (
	"fmt"
	"strings"
	"time"
)

// The verdicts a run ends with, first words of Summary.Verdict. Each maps to an exit code of
// replay run (see its --help): ok 0, failed 3, client-bound 5, interrupted 130; cut is a run
// rebuilt from its journal.
const (
	VerdictOK          = "ok"
	VerdictFailed      = "failed"
	VerdictClientBound = "client-bound"
	VerdictInterrupted = "interrupted"
	VerdictCut         = "cut"
	VerdictPartial     = "partial"
)

// clientBoundLine is the sentence a client-bound run must carry, word for word: whoever reads
// the figures must know they describe this machine.
const clientBoundLine = "client-bound: these figures measure the load generator, not the endpoint"

// DefaultMaxLateness is the send lateness p99 above which a run is client-bound.
const DefaultMaxLateness = 10 * time.Millisecond

// Limits are the thresholds a run is judged by (replay run's --max-error-rate and
// --max-lateness), written under run so that a rebuilt summary is judged the same way.
type Limits struct {
	// MaxErrorRate is the fraction of requests the endpoint may fail; client-side failures
	// are not the endpoint's and do not count.
	MaxErrorRate float64 `json:"max_error_rate"`
	// MaxLatenessMS is the highest send lateness p99 (sent - scheduled - queue wait, client
	// backlog included) at which the figures still describe the endpoint.
	MaxLatenessMS float64 `json:"max_lateness_ms"`
}

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

// DefaultLimits are replay run's defaults: 10% failures, 10 ms lateness p99.
func DefaultLimits() Limits {
	return Limits{MaxErrorRate: 0.1, MaxLatenessMS: float64(DefaultMaxLateness) / float64(time.Millisecond)}
}

// judge sets s.Verdict from the run's end and its limits. Client-bound comes before failed:
// when the generator could not keep up, the endpoint's figures, failures included, are not
// the endpoint's alone.
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
	case stop == "canceled":
		s.Verdict = fmt.Sprintf("%s: stopped with %d requests finished (%d never sent)", VerdictInterrupted, s.Requests.Total, s.Requests.NotSent)
	case s.Requests.Total == 0:
		s.Verdict = VerdictFailed + ": no request was sent"
	case s.clientBound(lim) != "":
		s.Verdict = clientBoundLine + " (" + s.clientBound(lim) + ")"
	case s.endpointFailRate() > lim.MaxErrorRate:
		failed := s.Requests.Failed - s.Client.Errors
		s.Verdict = fmt.Sprintf("%s: %d of %d requests failed (%.1f%%, over --max-error-rate %.1f%%)",
			VerdictFailed, failed, s.Requests.Total, 100*s.endpointFailRate(), 100*lim.MaxErrorRate)
	default:
		s.Verdict = VerdictOK
	}
}

// withResume adds a resumed run's gap and its kill's losses to verdict v: "ok" becomes "ok:
// resumed ...", any other kind gets it after its own reason.
func withResume(v string, r *Resume) string {
	what := fmt.Sprintf("resumed after a %.1f s gap at %.1f s of the run; %d requests lost at the kill", r.GapS, r.ResumedAtS, r.LostAtKill)
	if v == VerdictOK {
		return v + ": " + what
	}
	return v + "; " + what
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
	return line == kind || strings.HasPrefix(line, kind+":")
}
