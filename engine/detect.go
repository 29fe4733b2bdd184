package engine

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
)

// Detection is what Detect concluded and why.
type Detection struct {
	Engine Engine
	// Version is the engine's own version string where it serves one ("" otherwise):
	// /version for vLLM and TensorRT-LLM, SGLang's server info, TGI's /info, Ollama's
	// /api/version, llama.cpp's build_info.
	Version string
	// Evidence has one line per probe, in a fixed order, failures included ("GET /info: HTTP
	// 404"): what the caller prints, and what summary.json can keep.
	Evidence []string
	// MetricsPath is where the engine's Prometheus names were found under the server root
	// ("/metrics"), "" when no probe found them: then the engine's own default
	// (Engine.MetricsPath) is scraped.
	MetricsPath string
	// support are the evidence lines that voted for Engine.
	support []string
}

// String is the verdict on one line with the evidence that decided it, e.g.
// `vllm 0.11.0 (GET /v1/models: HTTP 200, model "m" owned_by "vllm"; ...)`.
func (d Detection) String() string {
	s := string(d.Engine)
	if d.Version != "" {
		s += " " + d.Version
	}
	if len(d.support) == 0 {
		return s + " (no probe named an engine)"
	}
	return s + " (" + strings.Join(d.support, "; ") + ")"
}

// Detect asks the server behind baseURL (--endpoint, the API root such as
// http://127.0.0.1:8000/v1) which engine it is: every probe at once, each bounded by a short
// timeout, each a line of evidence whether it answered or not. The engine with the most votes
// wins (ties in All's order); none at all is Generic. c carries the API key when the endpoint
// needs one (WithBearer); nil is http.DefaultClient. Only a bad baseURL or a cancelled ctx
// is an error.
func Detect(ctx context.Context, c *http.Client, baseURL string) (Detection, error) {
	root, err := ServerRoot(baseURL)
	if err != nil {
		return Detection{}, err
	}
	c = clientOr(c)
	found := make([]finding, len(probes))
	var wg sync.WaitGroup
	for i, p := range probes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			found[i] = p(ctx, c, root)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Detection{}, fmt.Errorf("engine: detecting %s: %w", root, err)
	}
	return decide(found), nil
}

// decide tallies the probes' votes into a Detection.
func decide(found []finding) Detection {
	tally := map[Engine]int{}
	d := Detection{Engine: Generic}
	for _, f := range found {
		d.Evidence = append(d.Evidence, f.evidence)
		for e, w := range f.votes {
			tally[e] += w
		}
	}
	ranked := sortedVotes(tally)
	if len(ranked) == 0 {
		return d
	}
	d.Engine = ranked[0]
	if len(ranked) > 1 && tally[ranked[1]] == tally[ranked[0]] {
		d.Evidence = append(d.Evidence, fmt.Sprintf("tie: %s and %s have %d votes each; %s is taken (pass --engine to choose)",
			ranked[0], ranked[1], tally[ranked[0]], ranked[0]))
	}
	for _, f := range found {
		if f.votes[d.Engine] > 0 {
			d.support = append(d.support, f.evidence)
			if d.MetricsPath == "" {
				d.MetricsPath = f.metricsPath
			}
		}
		if v := f.versions[d.Engine]; v != "" && d.Version == "" {
			d.Version = v
		}
	}
	return d
}

// sortedVotes lists an engine tally from the most votes down, ties in All's order.
func sortedVotes(t map[Engine]int) []Engine {
	out := make([]Engine, 0, len(t))
	for e := range t {
		out = append(out, e)
	}
	rank := func(e Engine) int {
		for i, x := range all {
			if x == e {
				return i
			}
		}
		return len(all)
	}
	sort.Slice(out, func(i, j int) bool {
		if t[out[i]] != t[out[j]] {
			return t[out[i]] > t[out[j]]
		}
		return rank(out[i]) < rank(out[j])
	})
	return out
}
