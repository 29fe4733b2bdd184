package runner

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/engine"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/scrape"
)

// engine.go keeps what one run knows of the endpoint's serving engine. Package engine decides
// the dialect (which engine it is, how output lengths are forced on it and whether the probe
// saw that work, the prefix-cache reset); this file hands it the run's settings, keeps its
// answers for summary.json's run.engine, and scrapes what the engine serves: its metrics
// page with its names, and the GPU exporters beside it (package scrape's GPU figures and
// energy per output token).

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
	choice engine.Choice
	http   *http.Client
	// transport is the client's, with the run's TLS settings, for scrapers; ownPage is true
	// when the engine's metrics page is the default one under --endpoint, which is sent the
	// API key as the endpoint is (a --metrics-url of the user's, or a GPU exporter, is not).
	transport http.RoundTripper
	ownPage   bool
	base      string
	apiKey    string
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

// newEngineState names the engine behind base (engine.Choose: the simulator's vLLM dialect,
// --engine's choice, or what engine.Detect finds) and checks the GPU exporters' pages. c is
// a client for base, whose HTTP transport the probes use.
func newEngineState(ctx context.Context, cfg Config, base string, simulated bool, c *client.Client) (*engineState, error) {
	tr := transportOf(c)
	s := &engineState{http: engine.WithBearer(&http.Client{Transport: tr}, cfg.Client.APIKey), transport: tr, apiKey: cfg.Client.APIKey,
		base: base, stderr: cfg.Stderr}
	s.info.CacheReset = engine.CacheLeftWarm
	if cfg.ResetCache {
		s.info.CacheReset = "not reset yet: --reset-cache resets it before the measured run"
	}
	for _, u := range cfg.GPUMetricsURLs {
		if _, err := resolveMetricsURL(u, ""); err != nil || u == "none" {
			return nil, fmt.Errorf("--metrics-url %q: want a GPU exporter's page such as http://127.0.0.1:9400/metrics (only the first --metrics-url may be none)", u)
		}
		s.gpuURLs = append(s.gpuURLs, u)
	}
	ch, err := engine.Choose(ctx, s.http, base, cfg.Engine, simulated, cfg.Stderr)
	if err != nil {
		return nil, err
	}
	s.choice, s.info.Version, s.info.Evidence = ch, ch.Version, ch.Evidence
	s.info.Name = string(ch.Engine)
	return s, nil
}

// names is the metric-names table the engine's page is read with.
func (s *engineState) names() scrape.Names {
	if s == nil {
		return scrape.Names{}
	}
	return scrape.ForEngine(string(s.choice.Engine))
}

// metricsURL is the engine's page to scrape for --metrics-url flag, "" for none: flag itself,
// or by default where the engine serves it under the endpoint (its path prefix kept), saying
// once why there is nothing to scrape when it serves none.
func (s *engineState) metricsURL(flag string) (string, error) {
	if flag != "" {
		return resolveMetricsURL(flag, s.base)
	}
	u, err := s.choice.MetricsURL(s.base)
	s.ownPage = u != ""
	if err == nil && u == "" {
		fmt.Fprintf(s.stderr, "replay: server metrics: %s; not scraped (--metrics-url names a page)\n", s.choice.Engine.MetricsNote())
	}
	return u, err
}

// force decides how output lengths are forced and checks it with one probe request before
// the warmup (engine's Choice.Force), keeping what it found for the summary. It returns the
// ExtraBody to send, nil for the user's unchanged.
func (s *engineState) force(ctx context.Context, cfg Config, model string) (map[string]any, error) {
	f, err := s.choice.Force(ctx, s.http, s.base, engine.ForceSettings{API: probeAPI(cfg.Client.API), Model: model, Extra: cfg.Client.ExtraBody,
		Verbatim: cfg.Body == BodyVerbatim, Withheld: client.ForcingKeys}, s.stderr)
	if err != nil {
		return nil, err
	}
	if f.ProbeStatus == http.StatusNotFound { // the route every request would go to is not there
		return nil, setupf("the endpoint answered HTTP 404 to the forcing probe's POST under %s (%s): is --endpoint the API root (such as http://host:8000/v1), --api one it serves, and --model a model it serves?",
			s.base, f.Probe)
	}
	s.info.Forced, s.info.Forcing, s.info.ForceFields, s.info.Probe = f.Forced, f.Note, f.Fields, f.Probe
	return f.Extra, nil
}

// thinkingField is the field a forced run bounds each request's thinking by (the client's
// ThinkingBudgetField): the engine's, when the run forces lengths or targets the simulator.
func (s *engineState) thinkingField() string {
	if !s.info.Forced && s.choice.Simulator == "" {
		return ""
	}
	return s.choice.Engine.ThinkingBudgetField()
}

// priorityField is the field --priority-map's priorities are sent as: the engine's (vLLM's
// priority; the simulator's, which speaks vLLM's API), "" without a map. A map against an
// engine with no priority field known here sends nothing, and the run says so; against vLLM it
// says the field needs its priority scheduling policy.
func (s *engineState) priorityField(cfg Config) string {
	if cfg.Routing.PriorityMap == nil {
		return ""
	}
	f := s.choice.Engine.PriorityField() // the simulator is chosen as vLLM
	switch {
	case f == "":
		fmt.Fprintf(cfg.Stderr, "replay: --priority-map: the engine (%s) takes no priority field replay knows (vLLM's priority): no priority is sent\n", s.choice.Engine)
	case s.choice.Simulator == "":
		fmt.Fprintf(cfg.Stderr, "replay: --priority-map: sending vLLM's %s field; vLLM refuses a priority other than 0 (HTTP 400) unless it was started with --scheduling-policy priority\n", f)
	}
	return f
}

// adapters is how --model-map's adapters are sent (client.Config.AdapterField): "" (the
// adapter's name as the model, vLLM's way; the simulator's too) without a map that names
// one, else the engine's field, with llama-server's ids by adapter name and every id it lists
// (AdapterIDs, AdapterListed) read from its GET /lora-adapters. An adapter it does not list
// is a setup error before the first send, naming the ones it lists.
func (s *engineState) adapters(ctx context.Context, cfg Config) (client.Config, error) {
	var out client.Config
	var names []string
	if m := cfg.Routing.ModelMap; m != nil {
		for _, t := range m.Targets() {
			if t.Adapter != "" && !slices.Contains(names, t.Adapter) {
				names = append(names, t.Adapter)
			}
		}
	}
	if len(names) == 0 || s.choice.Simulator != "" {
		return out, nil
	}
	out.AdapterField = s.choice.Engine.AdapterField()
	if out.AdapterField == engine.AdapterLoraPath {
		fmt.Fprintf(cfg.Stderr, "replay: --model-map: adapters sent as %s takes them: the base as the model, the adapter in lora_path\n", s.choice.Engine)
	}
	if out.AdapterField != engine.AdapterLoraIDs {
		return out, nil
	}
	list, err := engine.LoraAdapters(ctx, s.http, s.base)
	if err != nil {
		return out, setupf("--model-map names LoRA adapters (%s), which llama-server takes by the ids it lists, but listing them failed: %v (is it llama-server, started with --lora FILE for each?)",
			strings.Join(names, ", "), err)
	}
	out.AdapterIDs = map[string]int{}
	for _, a := range list {
		out.AdapterListed = append(out.AdapterListed, a.ID)
	}
	for _, n := range names {
		id, ok := engine.LoraID(list, n)
		if !ok {
			return out, setupf("--model-map: adapter %q is not one llama-server at %s loaded: its /lora-adapters lists %s; name an adapter by its file name without the extension or by its id, or start llama-server with --lora FILE for it",
				n, s.base, engine.LoraList(list))
		}
		out.AdapterIDs[n] = id
	}
	fmt.Fprintf(cfg.Stderr, "replay: --model-map: adapters sent as llama-server takes them: the base as the model, lora ids of its /lora-adapters (%s), every other at scale 0\n", adapterIDs(out.AdapterIDs, names))
	return out, nil
}

// adapterIDs is "support=0, sql=1", in names' order.
func adapterIDs(ids map[string]int, names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s=%d", n, ids[n])
	}
	return strings.Join(parts, ", ")
}

// resetCache empties the engine's prefix cache before the measured run under --reset-cache
// (after the warmup, before the server's counters are first read), so it starts cold; each
// sweep step is a run of its own and resets again. The summary records what happened.
func (s *engineState) resetCache(ctx context.Context, cfg Config) {
	if s != nil && cfg.ResetCache {
		s.info.CacheReset = s.choice.ResetForRun(ctx, s.http, s.base, s.stderr)
	}
}

// startGPUs starts a scraper of DCGM's names for every GPU exporter, beside the engine's.
func (s *engineState) startGPUs(ctx context.Context, cfg Config) ([]*scrape.Scraper, error) {
	if s == nil {
		return nil, nil
	}
	var out []*scrape.Scraper
	for i, u := range s.gpuURLs {
		scr, err := scrape.Start(ctx, scrape.Config{URL: u, Interval: cfg.MetricsInterval,
			Path: filepath.Join(cfg.Out, runfolder.GPUMetricsOf(i)), Warn: cfg.Stderr, Names: scrape.DCGM, Client: s.scrapeClient(cfg, false)})
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
			fmt.Fprintf(s.stderr, "replay: GPU metrics: %d scrapes of %s into %s\n", res.Scrapes, res.URL, runfolder.GPUMetricsOf(i))
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
	for _, res := range s.gpu {
		for _, st := range scrape.GPUStats(res) {
			info.GPUs = append(info.GPUs, analysis.GPUStat(st))
		}
	}
	tokens := o.metrics.Summary(analysis.RunInfo{}).Throughput.OutputTokens
	if j, err := scrape.EnergyPerOutputToken(s.gpu, tokens); err == nil {
		info.EnergyJPerOutputToken = &j
	}
	return &info
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
