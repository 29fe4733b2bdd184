package runner

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/engine"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/scrape"
)

// engine.go speaks the endpoint's serving engine's dialect for one run (package engine knows
// the dialects; this file decides what the run does with them): which engine it is (--engine,
// or detected), how output lengths are forced on it (its fields added to ExtraBody, checked by
// one probe before the warmup), its prefix-cache reset (--reset-cache), which metrics page it
// serves and with which names, and the GPU exporters scraped beside it, from whose power the
// energy per output token comes. Everything it finds goes into summary.json's run.engine.

// simulatorOwner is how detection's evidence quotes the owned_by of replay's simulator's
// models (sim/server.go), which engine.Detect counts as vLLM's dialect.
const simulatorOwner = `owned_by "replay-simulator"`

// forcingProbeTokens is the output length the forcing probe asks for.
const forcingProbeTokens = 32

// GPUMetricsFile is the first GPU exporter's samples (the second --metrics-url), in the
// server-metrics line format; further exporters write gpu_metrics-2.jsonl, gpu_metrics-3.jsonl...
const GPUMetricsFile = runfolder.GPUMetrics

// Cache-reset states of the summary, beside "not reset: why".
const (
	cacheReset    = "reset"
	cacheLeftWarm = "left warm"
)

// CheckEngine reports whether name is a valid --engine (auto, an engine, or a common spelling
// of one), so a command can refuse a bad one before the trace is read.
func CheckEngine(name string) error {
	_, err := engine.ParseEngine(name)
	return err
}

// EngineNames are --engine's values: auto, then every engine.
func EngineNames() []string {
	names := []string{string(engine.Auto)}
	for _, e := range engine.All() {
		names = append(names, string(e))
	}
	return names
}

// engineState is what the run knows of the endpoint's engine: the engine, the HTTP client
// its own endpoints are asked through (the run's TLS settings and API key), what goes into the
// summary, and the GPU exporters with what they saw.
type engineState struct {
	e    engine.Engine
	http *http.Client
	// transport is the client's, with the run's TLS settings, for scrapers; ownPage is true
	// when the engine's metrics page is the default one under --endpoint, which is sent the
	// API key as the endpoint is (a --metrics-url of the user's, or a GPU exporter, is not).
	transport http.RoundTripper
	ownPage   bool
	base      string
	apiKey    string
	// simulator names replay's simulator when it is the target ("the built-in simulator", or
	// "replay sim" behind --endpoint, known by its owned_by), "" for an engine: its answers
	// run to max_tokens by construction, so it is not probed.
	simulator string
	stderr    io.Writer
	info      analysis.EngineInfo
	// gpuURLs are the GPU exporters (--metrics-url after the first); gpu what each scraper saw,
	// set when the measured run ended.
	gpuURLs []string
	gpu     []scrape.Result
}

// transportOf is the HTTP transport behind c, which holds the run's TLS settings (--ca-file,
// --insecure); nil for the default.
func transportOf(c *client.Client) http.RoundTripper {
	if hc, ok := c.OpenAIConfig().HTTPClient.(*http.Client); ok {
		return hc.Transport
	}
	return nil
}

// scrapeClient is the client a scraper polls its page with: the run's TLS settings, the API
// key only when ownPage asks for it and the page is the engine's default one under
// --endpoint, and scrape's own default timeout (the interval, between 1 and 10 seconds).
func (s *engineState) scrapeClient(cfg Config, ownPage bool) *http.Client {
	if s == nil {
		return nil
	}
	interval := cfg.MetricsInterval
	if interval <= 0 {
		interval = time.Second
	}
	c := &http.Client{Transport: s.transport, Timeout: min(max(interval, time.Second), 10*time.Second)}
	if ownPage && s.ownPage {
		return engine.WithBearer(c, s.apiKey)
	}
	return c
}

// newEngineState names the engine behind base: the simulator's vLLM dialect, --engine's
// choice, or what engine.Detect finds (the verdict printed on one line). c is a client for
// base, whose HTTP transport the probes use.
func newEngineState(ctx context.Context, cfg Config, base string, simulated bool, c *client.Client) (*engineState, error) {
	tr := transportOf(c)
	s := &engineState{http: engine.WithBearer(&http.Client{Transport: tr}, cfg.APIKey), transport: tr, apiKey: cfg.APIKey,
		base: base, stderr: cfg.Stderr}
	s.info.CacheReset = cacheLeftWarm
	if cfg.ResetCache {
		s.info.CacheReset = "not reset yet: --reset-cache resets it before the measured run"
	}
	for _, u := range cfg.GPUMetricsURLs {
		if _, err := resolveMetricsURL(u, ""); err != nil || u == "none" {
			return nil, fmt.Errorf("--metrics-url %q: want a GPU exporter's page such as http://127.0.0.1:9400/metrics (only the first --metrics-url may be none)", u)
		}
		s.gpuURLs = append(s.gpuURLs, u)
	}
	chosen, err := engine.ParseEngine(cfg.Engine)
	if err != nil {
		return nil, err
	}
	switch {
	case simulated:
		s.e, s.simulator = engine.VLLM, "the built-in simulator"
		s.info.Evidence = []string{"the built-in simulator: vLLM's API and metric names (not probed)"}
		fmt.Fprintf(cfg.Stderr, "replay: engine: vllm-compatible (the built-in simulator; not probed)\n")
	case chosen != engine.Auto:
		s.e = chosen
		s.info.Evidence = []string{"--engine " + string(chosen)}
		fmt.Fprintf(cfg.Stderr, "replay: engine: %s (--engine; not detected)\n", chosen)
	default:
		det, err := engine.Detect(ctx, s.http, base)
		if err != nil {
			return nil, err
		}
		s.e, s.info.Version, s.info.Evidence = det.Engine, det.Version, det.Evidence
		line, _, _ := strings.Cut(det.String(), "\n")
		if det.Engine == engine.VLLM && slices.ContainsFunc(det.Evidence, func(ev string) bool { return strings.Contains(ev, simulatorOwner) }) {
			s.simulator = "replay sim"
			line += "; replay's simulator, vllm-compatible, not probed"
		}
		fmt.Fprintf(cfg.Stderr, "replay: engine: %s\n", line)
	}
	s.info.Name = string(s.e)
	return s, nil
}

// names is the metric-names table the engine's page is read with.
func (s *engineState) names() scrape.Names {
	if s == nil {
		return scrape.Names{}
	}
	return scrape.ForEngine(string(s.e))
}

// metricsURL is the engine's page to scrape for --metrics-url flag, "" for none: flag itself,
// or by default where the engine serves it under the endpoint (its path prefix kept), saying
// once why there is nothing to scrape when it serves none.
func (s *engineState) metricsURL(flag string) (string, error) {
	if flag != "" {
		return resolveMetricsURL(flag, s.base)
	}
	u, err := s.e.MetricsURL(s.base)
	s.ownPage = u != ""
	if err == nil && u == "" {
		fmt.Fprintf(s.stderr, "replay: server metrics: %s; not scraped (--metrics-url names a page)\n", s.e.MetricsNote())
	}
	return u, err
}

// hasForcing reports whether extra holds a field that forces the output length.
func hasForcing(extra map[string]any) bool {
	for _, k := range client.ForcingKeys {
		if _, ok := extra[k]; ok {
			return true
		}
	}
	return false
}

// engineExtra is the ExtraBody the run sends: the user's, plus the engine's forcing fields
// when the user's has none and the engine has them (the user's keys win). They are among
// client.ForcingKeys, so under --options logged they go, as the user's would, only to the
// requests whose logged answer ran to its length unconstrained (Request.Unforced). nil means
// the user's ExtraBody unchanged.
func (s *engineState) engineExtra(cfg Config) map[string]any {
	if s.simulator != "" || cfg.Body == BodyVerbatim || hasForcing(cfg.ExtraBody) || !s.e.Forceable() {
		return nil
	}
	f := s.e.ForceFields(0)
	for k := range f {
		if !slices.Contains(client.ForcingKeys, k) {
			return nil // a field the client would not withhold from unforced requests
		}
	}
	extra := maps.Clone(f)
	maps.Copy(extra, cfg.ExtraBody)
	return extra
}

// probeDialect is the engine whose forcing fields the probe sends: the endpoint's, or, where
// the engine has none but --extra-body brought its own forcing fields, the dialect those are
// of (vLLM's ignore_eos and min_tokens, or llama.cpp's ignore_eos alone).
func (s *engineState) probeDialect(cfg Config) engine.Engine {
	if s.e.Forceable() {
		return s.e
	}
	if _, ok := cfg.ExtraBody["min_tokens"]; ok {
		return engine.VLLM
	}
	return engine.LlamaCpp
}

// force decides how output lengths are forced and checks it with one probe request before
// the warmup: a forcing that does not work is a warning before anything is sent, and the
// summary says "not forceable on this engine". It returns the ExtraBody to send, nil for the
// user's unchanged. The simulator runs every answer to its max_tokens and is not probed; a
// --body verbatim run sends the logged bodies, so nothing is forced.
func (s *engineState) force(ctx context.Context, cfg Config, model string) (map[string]any, error) {
	userForcing := hasForcing(cfg.ExtraBody)
	switch {
	case s.simulator != "":
		s.info.Forced, s.info.Forcing = true, "forced: "+s.simulator+" runs every answer to its max_tokens (not probed)"
		return nil, nil
	case cfg.Body == BodyVerbatim:
		s.info.Forcing = "not forced: --body verbatim sends the logged bodies as they were, so output lengths are the engine's own"
		return nil, nil
	case !userForcing && !s.e.Forceable():
		s.info.Forcing = "not forceable on this engine: " + s.e.ForceNote()
		fmt.Fprintf(s.stderr, "replay: engine: %s; output lengths may fall short of their targets\n", s.e.ForceNote())
		return nil, nil
	}
	extra := s.engineExtra(cfg)
	if extra != nil {
		s.info.ForceFields = s.e.ForceFields(0)
	}
	res, err := engine.ProbeForcing(ctx, s.http, s.base, cfg.API, model, s.probeDialect(cfg), forcingProbeTokens)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		s.info.Forcing = "not checked: " + err.Error()
		fmt.Fprintf(s.stderr, "replay: warning: %v; output lengths may not be forced\n", err)
		return extra, nil
	}
	s.info.Probe = res.Note
	if res.Forced {
		s.info.Forced, s.info.Forcing = true, "forced"
		if userForcing {
			s.info.Forcing = "forced by --extra-body"
		}
		fmt.Fprintf(s.stderr, "replay: engine: %s\n", res.Note)
		return extra, nil
	}
	s.info.Forcing = "not forceable on this engine: " + res.Note
	if !s.e.Forceable() {
		s.info.Forcing += " (" + s.e.ForceNote() + ")"
	}
	fmt.Fprintf(s.stderr, "replay: warning: %s\n", res.Note)
	if extra != nil && res.Status/100 == 4 {
		// The server refused the fields the run would add: send without them rather than
		// have every request refused.
		s.info.ForceFields = nil
		fmt.Fprintf(s.stderr, "replay: warning: the server refused %s's forcing fields; the run sends none\n", s.e.Label())
		return nil, nil
	}
	return extra, nil
}

// resetCache empties the engine's prefix cache before the measured run under --reset-cache
// (after the warmup, before the server's counters are first read), so it starts cold; each
// sweep step is a run of its own and resets again. The summary records what happened.
func (s *engineState) resetCache(ctx context.Context, cfg Config) {
	if s == nil || !cfg.ResetCache {
		return
	}
	if s.simulator != "" {
		s.info.CacheReset = "not reset: " + s.simulator + " has no endpoint that resets its prefix cache"
		fmt.Fprintf(s.stderr, "replay: warning: prefix cache %s\n", s.info.CacheReset)
		return
	}
	res, err := engine.ResetPrefixCache(ctx, s.http, s.base, s.e)
	switch {
	case err != nil:
		s.info.CacheReset = "not reset: " + err.Error()
	case res.Reset:
		s.info.CacheReset = cacheReset
		msg := "replay: prefix cache reset (" + res.Endpoint + ")"
		if res.Why != "" {
			msg += "; " + res.Why
		}
		fmt.Fprintln(s.stderr, msg)
		return
	default:
		s.info.CacheReset = "not reset: " + res.Why
	}
	fmt.Fprintf(s.stderr, "replay: warning: prefix cache %s; the run starts with a warm cache\n", s.info.CacheReset)
}

// gpuFile is the file of the i-th GPU exporter (from 0).
func gpuFile(i int) string {
	if i == 0 {
		return GPUMetricsFile
	}
	return strings.TrimSuffix(GPUMetricsFile, ".jsonl") + "-" + strconv.Itoa(i+1) + ".jsonl"
}

// startGPUs starts a scraper of DCGM's names for every GPU exporter, beside the engine's.
func (s *engineState) startGPUs(ctx context.Context, cfg Config) ([]*scrape.Scraper, error) {
	if s == nil {
		return nil, nil
	}
	var out []*scrape.Scraper
	for i, u := range s.gpuURLs {
		scr, err := scrape.Start(ctx, scrape.Config{URL: u, Interval: cfg.MetricsInterval,
			Path: filepath.Join(cfg.Out, gpuFile(i)), Warn: cfg.Stderr, Names: scrape.DCGM, Client: s.scrapeClient(cfg, false)})
		if err != nil {
			s.stopGPUs(out)
			return nil, err
		}
		out = append(out, scr)
	}
	return out, nil
}

// stopGPUs stops the GPU scrapers and keeps what they saw for the summary.
func (s *engineState) stopGPUs(scrs []*scrape.Scraper) {
	for i, scr := range scrs {
		res := scr.Stop()
		if res.WriteError != nil {
			fmt.Fprintf(s.stderr, "replay: GPU metrics: %v (the summary still has them)\n", res.WriteError)
		}
		if res.Scrapes > 0 && res.WriteError == nil {
			fmt.Fprintf(s.stderr, "replay: GPU metrics: %d scrapes of %s into %s\n", res.Scrapes, res.URL, gpuFile(i))
		}
		s.gpu = append(s.gpu, res)
	}
}

// summary is the engine block of the summary: a copy, so a snapshot taken while the run goes
// never shares it, with the GPUs' figures and the energy per output token once the GPU
// exporters were scraped. Only then, at the run's end with every row in o.metrics, are the
// run's output tokens read from it.
func (s *engineState) summary(o *outcome) *analysis.EngineInfo {
	if s == nil {
		return nil
	}
	info := s.info
	info.Evidence = slices.Clone(info.Evidence)
	info.ForceFields = maps.Clone(info.ForceFields)
	if len(s.gpu) == 0 {
		return &info
	}
	power := map[string][]scrape.PowerPoint{}
	for i, res := range s.gpu {
		info.GPUs = append(info.GPUs, gpuStats(res)...)
		for gpu, pts := range scrape.PowerSeries(res.Samples) {
			power[strconv.Itoa(i)+"/"+gpu] = pts // two exporters' GPU 0 are two GPUs
		}
	}
	tokens := o.metrics.Summary(analysis.RunInfo{}).Throughput.OutputTokens
	if j, err := scrape.EnergyPerToken(power, tokens); err == nil {
		v := math.Round(j*1e6) / 1e6
		info.EnergyJPerOutputToken = &v
	}
	return &info
}

// gpuStats are one exporter's GPUs over the run: mean utilization and power, peak memory.
func gpuStats(res scrape.Result) []analysis.GPUStat {
	type acc struct {
		n, nUtil, nPower, nMem int
		util, power, maxMem    float64
	}
	by := map[string]*acc{}
	var order []string
	for _, smp := range res.Samples {
		for _, g := range scrape.GPUs(smp.Values) {
			a := by[g.GPU]
			if a == nil {
				a = &acc{maxMem: math.Inf(-1)}
				by[g.GPU] = a
				order = append(order, g.GPU)
			}
			a.n++
			if !math.IsNaN(g.UtilPct) {
				a.util += g.UtilPct
				a.nUtil++
			}
			if !math.IsNaN(g.PowerW) {
				a.power += g.PowerW
				a.nPower++
			}
			if !math.IsNaN(g.MemUsedMiB) {
				a.maxMem = max(a.maxMem, g.MemUsedMiB)
				a.nMem++
			}
		}
	}
	out := make([]analysis.GPUStat, 0, len(order))
	for _, gpu := range order {
		a := by[gpu]
		st := analysis.GPUStat{Exporter: res.URL, GPU: gpu, Scrapes: a.n}
		st.MeanUtilPct = mean(a.util, a.nUtil)
		st.MeanPowerW = mean(a.power, a.nPower)
		if a.nMem > 0 {
			v := a.maxMem
			st.MaxMemUsedMiB = &v
		}
		out = append(out, st)
	}
	return out
}

// mean is sum/n to three decimals, nil for no values.
func mean(sum float64, n int) *float64 {
	if n == 0 {
		return nil
	}
	v := math.Round(sum/float64(n)*1000) / 1000
	return &v
}

// addGPUSeries hands the GPU exporters' scrapes to the run's metrics, for report.html's GPU
// plots (analysis reads them back from the files the same way for `replay report`).
func (s *engineState) addGPUSeries(m *analysis.Metrics) {
	if s == nil {
		return
	}
	for i, res := range s.gpu {
		m.AddGPUSamples(i, res.Samples)
	}
}
