package analysis

import (
	"fmt"
	"math"
	"strings"
)

// Judgement is the verdict's parts: whether the run is a valid measurement (the client kept
// the schedule, the endpoint saw the logged lengths, the log was read whole enough), each
// reason it is not with the figure behind it, and the endpoint's state as the client saw it.
// summary.json keeps it beside the verdict's line so that a script reads the parts and a
// person the line.
type Judgement struct {
	Valid bool `json:"valid"`
	// Reasons are why the run is not valid (and an endpoint failing past --max-error-rate),
	// most severe first, each with its exit code.
	Reasons []Reason `json:"reasons,omitempty"`
	// Lengths is "as logged", "not as logged", "unverified" (the endpoint reported no usage)
	// or "not judged" (logged bodies sent verbatim: their lengths are the engine's own).
	Lengths string `json:"lengths"`
	// Endpoint is healthy, saturated or failing; EndpointWhy the figures that say so.
	Endpoint    string `json:"endpoint"`
	EndpointWhy string `json:"endpoint_why,omitempty"`
	// Details are what the reader should know beside the verdict: an unverified length, a
	// tokenizer that differs from the endpoint's, server metrics that stayed empty.
	Details []string `json:"details,omitempty"`
	// Exit is replay run's exit code for this verdict (0 when valid and not failing).
	Exit int `json:"exit"`
}

// Reason is one thing that keeps the run from being valid, or the endpoint failing past its
// limit: its exit code and what it was, with its figure.
type Reason struct {
	Exit int    `json:"exit"`
	Text string `json:"text"`
}

// The Lengths values.
const (
	LengthsAsLogged    = "as logged"
	LengthsNotAsLogged = "not as logged"
	LengthsUnverified  = "unverified"
	LengthsNotJudged   = "not judged"
)

// judgement judges a run that sent requests.
func (s *Summary) judgement(lim Limits) *Judgement {
	j := &Judgement{Endpoint: EndpointHealthy}
	if why := s.clientBound(lim); why != "" {
		j.Reasons = append(j.Reasons, Reason{ExitClientBound, why})
	}
	s.judgeLengths(j, lim)
	if in := s.Input; in != nil && in.Lines > 0 && float64(in.Rejected) > lim.maxSkip()*float64(in.Lines) {
		j.Reasons = append(j.Reasons, Reason{ExitSkipped, fmt.Sprintf("%d of the log's %d lines rejected as bad (%.1f%%, over --max-skip %s)",
			in.Rejected, in.Lines, 100*float64(in.Rejected)/float64(in.Lines), pctWord(lim.maxSkip()))})
	}
	s.judgeEndpoint(j, lim)
	j.Valid = true
	for _, r := range j.Reasons {
		j.Valid = j.Valid && r.Exit == ExitFailed
	}
	j.sortReasons()
	if len(j.Reasons) > 0 {
		j.Exit = j.Reasons[0].Exit
	}
	j.Details = append(j.Details, s.Run.Notes...)
	if sm := s.ServerMetrics; sm != nil && sm.Note != "" {
		j.Details = append(j.Details, "server metrics: "+sm.Note)
	}
	return j
}

// judgeLengths says whether the endpoint saw the logged prompt lengths, by its own usage.
func (s *Summary) judgeLengths(j *Judgement, lim Limits) {
	exact := s.Fidelity.PromptTokensExactPct
	switch {
	case s.Run.Body == "verbatim":
		j.Lengths = LengthsNotJudged
	case exact == nil:
		j.Lengths = LengthsUnverified
		j.Details = append(j.Details, "lengths unverified: the endpoint reported no token usage, so the prompt lengths it saw are not known")
	case *exact < 100*lim.minExact():
		j.Lengths = LengthsNotAsLogged
		why := fmt.Sprintf("the endpoint did not see the logged lengths: prompt tokens exact in %.1f%% of requests by its usage, under --min-exact %s", *exact, pctWord(lim.minExact()))
		if t := s.Run.TokenizerMismatch; t != "" {
			why += " (" + t + ")"
		}
		j.Reasons = append(j.Reasons, Reason{ExitLengths, why})
	default:
		j.Lengths = LengthsAsLogged
	}
}

// judgeEndpoint sets the endpoint's state: failing when it failed more than 5% of the
// requests or more than --max-error-rate (which alone exits 3), else saturated or healthy.
func (s *Summary) judgeEndpoint(j *Judgement, lim Limits) {
	rate := s.endpointFailRate()
	failed := s.Requests.Failed - s.Client.Errors
	switch {
	case rate > lim.MaxErrorRate:
		j.Endpoint = EndpointFailing
		j.EndpointWhy = fmt.Sprintf("%d of %d requests failed (%.1f%%, over --max-error-rate %s)", failed, s.Requests.Total, 100*rate, pctWord(lim.MaxErrorRate))
		j.Reasons = append(j.Reasons, Reason{ExitFailed, j.EndpointWhy})
	case rate > failingShare:
		j.Endpoint = EndpointFailing
		j.EndpointWhy = fmt.Sprintf("%d of %d requests failed (%.1f%%, within --max-error-rate %s)", failed, s.Requests.Total, 100*rate, pctWord(lim.MaxErrorRate))
	case s.saturated != "":
		j.Endpoint, j.EndpointWhy = EndpointSaturated, s.saturated
	}
}

// failingShare is the share of failed requests past which an endpoint is called failing even
// within --max-error-rate.
const failingShare = 0.05

// sortReasons orders the reasons by exitOrder.
func (j *Judgement) sortReasons() {
	var out []Reason
	for _, code := range exitOrder {
		for _, r := range j.Reasons {
			if r.Exit == code {
				out = append(out, r)
			}
		}
	}
	j.Reasons = out
}

// line is the verdict in one line, its first word the kind that gives the exit code: "valid:
// endpoint healthy", "not valid: the endpoint did not see ...; endpoint healthy",
// "client-bound: these figures measure ...", "failed: 40 of 100 requests failed ...".
func (j *Judgement) line() string {
	var b strings.Builder
	for i, r := range j.Reasons {
		if i > 0 {
			b.WriteString("; also ")
		}
		switch r.Exit {
		case ExitClientBound:
			b.WriteString(clientBoundLine + " (" + r.Text + ")")
		case ExitFailed:
			if i == 0 {
				b.WriteString(VerdictFailed + ": ")
			}
			b.WriteString(r.Text)
		default:
			if i == 0 {
				b.WriteString(VerdictNotValid + ": ")
			}
			b.WriteString(r.Text)
		}
	}
	if len(j.Reasons) == 0 {
		b.WriteString(VerdictOK + ": endpoint " + j.Endpoint)
	} else {
		b.WriteString("; endpoint " + j.Endpoint)
	}
	if j.EndpointWhy != "" && !(len(j.Reasons) > 0 && j.Reasons[len(j.Reasons)-1].Text == j.EndpointWhy) {
		b.WriteString(" (" + j.EndpointWhy + ")")
	}
	if j.Lengths == LengthsUnverified {
		b.WriteString("; lengths unverified (no usage reported)")
	}
	return b.String()
}

// pctWord is a fraction as a percentage for messages: 0.99 → "99%".
func pctWord(f float64) string {
	return fmt.Sprintf("%g%%", math.Round(100*f*1e6)/1e6)
}
