package engine

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
)

// ForcingProbeTokens is the output length the forcing probe asks for.
const ForcingProbeTokens = 32

// ForceSettings is what a run's forcing depends on beside its engine.
type ForceSettings struct {
	API, Model string
	// Extra is the user's own extra body fields (--extra-body); its keys win over the
	// engine's.
	Extra map[string]any
	// Verbatim is true when the logged bodies are sent as they were (--body verbatim).
	Verbatim bool
	// Withheld are the fields the client withholds from requests whose logged answer ran to
	// its length unconstrained (client.ForcingKeys): only those may be added, so that under
	// logged options the engine's fields go, as the user's would, only where forcing belongs.
	Withheld []string
}

// Forcing is how a run forces output lengths, as summary.json's run.engine says it.
type Forcing struct {
	// Extra is the ExtraBody to send: the user's with the engine's fields; nil for the user's
	// unchanged.
	Extra map[string]any
	// Forced, Note (summary's "forcing"), Fields (the fields added) and Probe (the probe's
	// verdict) go into the summary as they are.
	Forced bool
	Note   string
	Fields map[string]any
	Probe  string
	// ProbeStatus is the probe's HTTP status (0 when none was sent or none came): a 404 says
	// the run's route is not there.
	ProbeStatus int
}

// hasForcing reports whether extra holds one of the withheld fields, which force the output
// length.
func (s ForceSettings) hasForcing() bool {
	for _, k := range s.Withheld {
		if _, ok := s.Extra[k]; ok {
			return true
		}
	}
	return false
}

// extra is the ExtraBody the run sends: the user's, plus the engine's forcing fields when the
// user's has none and the engine has them (the user's keys win); nil for the user's unchanged.
func (c Choice) extra(s ForceSettings) map[string]any {
	if c.Simulator != "" || s.Verbatim || s.hasForcing() || !c.Engine.Forceable() {
		return nil
	}
	f := c.Engine.ForceFields(0)
	for k := range f {
		if !slices.Contains(s.Withheld, k) {
			return nil // a field the client would not withhold from unforced requests
		}
	}
	extra := maps.Clone(f)
	maps.Copy(extra, s.Extra)
	return extra
}

// probeDialect is the engine whose forcing fields the probe sends: the endpoint's, or, where
// the engine has none but the user's extra fields force, the dialect those are of (vLLM's
// ignore_eos and min_tokens, or llama.cpp's ignore_eos alone).
func (c Choice) probeDialect(s ForceSettings) Engine {
	if c.Engine.Forceable() {
		return c.Engine
	}
	if _, ok := s.Extra["min_tokens"]; ok {
		return VLLM
	}
	return LlamaCpp
}

// Force decides how output lengths are forced and checks it with one probe request through
// hc before the warmup: a forcing that does not work is a warning to w before anything is
// sent, and the summary says "not forceable on this engine". The simulator runs every answer
// to its max_tokens and is not probed; a verbatim run sends the logged bodies, so nothing is
// forced. An error is only ctx's.
func (c Choice) Force(ctx context.Context, hc *http.Client, baseURL string, s ForceSettings, w io.Writer) (Forcing, error) {
	userForcing := s.hasForcing()
	switch {
	case c.Simulator != "":
		return Forcing{Forced: true, Note: "forced: " + c.Simulator + " runs every answer to its max_tokens (not probed)"}, nil
	case s.Verbatim:
		return Forcing{Note: "not forced: --body verbatim sends the logged bodies as they were, so output lengths are the engine's own"}, nil
	case !userForcing && !c.Engine.Forceable():
		fmt.Fprintf(w, "replay: engine: %s; output lengths may fall short of their targets\n", c.Engine.ForceNote())
		return Forcing{Note: "not forceable on this engine: " + c.Engine.ForceNote()}, nil
	}
	f := Forcing{Extra: c.extra(s)}
	if f.Extra != nil {
		f.Fields = c.Engine.ForceFields(0)
	}
	res, err := ProbeForcing(ctx, hc, baseURL, s.API, s.Model, c.probeDialect(s), ForcingProbeTokens)
	if err != nil {
		if ctx.Err() != nil {
			return Forcing{}, ctx.Err()
		}
		f.Note = "not checked: " + err.Error()
		fmt.Fprintf(w, "replay: warning: %v; output lengths may not be forced\n", err)
		return f, nil
	}
	f.Probe, f.ProbeStatus = res.Note, res.Status
	if res.Forced {
		f.Forced, f.Note = true, "forced"
		if userForcing {
			f.Note = "forced by --extra-body"
		}
		fmt.Fprintf(w, "replay: engine: %s\n", res.Note)
		return f, nil
	}
	return c.unforced(f, res, w), nil
}

// unforced is f after a probe that saw the output length not forced: a warning, and, when the
// server refused the fields the run would add, none sent rather than every request refused.
func (c Choice) unforced(f Forcing, res ProbeResult, w io.Writer) Forcing {
	f.Note = "not forceable on this engine: " + res.Note
	if !c.Engine.Forceable() {
		f.Note += " (" + c.Engine.ForceNote() + ")"
	}
	fmt.Fprintf(w, "replay: warning: %s\n", res.Note)
	if f.Extra != nil && res.Status/100 == 4 {
		f.Fields, f.Extra = nil, nil
		fmt.Fprintf(w, "replay: warning: the server refused %s's forcing fields; the run sends none\n", c.Engine.Label())
	}
	return f
}
