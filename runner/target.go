package runner

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/sim"
)

// target is what the run sends to: the endpoint (or the simulator started for it), the client
// configured for it, the page its metrics are scraped from and its label in the rows, and its
// serving engine.
type target struct {
	client     *client.Client
	model      string
	label      string
	metricsURL string
	simulated  bool
	eng        *engineState
	checks     *analysis.Checks // the behaviour checks (checks.go), nil when none were run
	// tokenizerMismatch says how the endpoint's tokenizer differs from the run's, when the
	// endpoint lists its own by content (tokdigest.go); "" otherwise.
	tokenizerMismatch string
	stop              func() error
}

// startTarget resolves --endpoint, or starts the built-in simulator in-process, counting
// prompts as `replay sim --tokenizer` does, when there is none.
func startTarget(ctx context.Context, cfg Config, p *plan) (*target, error) {
	t := &target{model: cfg.Client.Model, label: cfg.Client.BaseURL, stop: func() error { return nil }}
	endpoint := cfg.Client.BaseURL
	if endpoint == "" {
		u, err := t.startSim(ctx, cfg, p)
		if err != nil {
			return nil, err
		}
		endpoint = u
	}
	if t.model == "" {
		t.stop()
		return nil, errors.New("--model is required with --endpoint")
	}
	err := t.connect(ctx, cfg, endpoint)
	if err != nil {
		t.stop()
		return nil, err
	}
	return t, nil
}

// startSim starts the in-process simulator and returns its URL.
func (t *target) startSim(ctx context.Context, cfg Config, p *plan) (string, error) {
	sc := cfg.Sim
	if sc.BlockSize == 0 {
		sc = sim.DefaultConfig()
	}
	if err := ServerCounting(p.tokPath, p.tok, &sc); err != nil {
		return "", err
	}
	if n := cfg.Ingest.ImageTokens; n > 0 {
		sc.Images = media.Fixed(n) // --image-tokens: the simulator counts as the prompts were built
	}
	if r := cfg.Ingest.AudioTokensPerSecond; r > 0 {
		sc.Audio = media.TokensPerSecond(r) // --audio-tokens-per-second, likewise
	}
	if err := simModels(&sc, p, cfg.Ingest.ImageTokens, cfg.Ingest.AudioTokensPerSecond); err != nil {
		return "", err
	}
	if t.model == "" {
		t.model = sc.ModelName
	}
	// The simulator outlives an interrupt until the run has written what finished.
	u, stop, err := sim.Listen(context.WithoutCancel(ctx), "127.0.0.1:0", sc)
	if err != nil {
		return "", fmt.Errorf("starting the built-in simulator: %w", err)
	}
	t.stop, t.simulated, t.label = stop, true, "simulator"
	fmt.Fprintf(cfg.Stderr, "replay: no --endpoint given: started the built-in simulator at %s (simulated timings, not a real model)\n", u)
	return u, nil
}

// connect configures the client and the metrics page for endpoint, after naming its engine
// (engine.go): the engine decides the default metrics page and its names, and the forcing
// fields added to the client's ExtraBody once one probe request has checked them.
func (t *target) connect(ctx context.Context, cfg Config, endpoint string) error {
	base, err := baseURL(endpoint)
	if err != nil {
		return err
	}
	if _, err := resolveMetricsURL(cfg.MetricsURL, endpoint); err != nil {
		return err // a bad --metrics-url, before anything is asked of the endpoint
	}
	// The run's client settings as given, at the API root and with the model the simulator
	// may have named.
	ccfg := cfg.Client
	ccfg.BaseURL, ccfg.Model = base, t.model
	if t.client, err = client.New(ccfg); err != nil {
		return err
	}
	if t.eng, err = newEngineState(ctx, cfg, base, t.simulated, t.client); err != nil {
		return err
	}
	if t.metricsURL, err = t.eng.metricsURL(cfg.MetricsURL); err != nil {
		return err
	}
	extra, err := t.eng.force(ctx, cfg, t.model)
	if err != nil {
		return err
	}
	field, priority := t.eng.thinkingField(), t.eng.priorityField(cfg)
	adapters, err := t.eng.adapters(ctx, cfg)
	if err != nil || (extra == nil && field == "" && priority == "" && adapters.AdapterField == "") {
		return err
	}
	if extra != nil {
		ccfg.ExtraBody = extra
	}
	ccfg.ThinkingBudgetField, ccfg.PriorityField = field, priority
	ccfg.AdapterField, ccfg.AdapterIDs, ccfg.AdapterListed = adapters.AdapterField, adapters.AdapterIDs, adapters.AdapterListed
	t.client, err = client.New(ccfg)
	return err
}

// baseURL turns --endpoint into the API root the client appends paths to: a bare host gets /v1.
func baseURL(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("--endpoint %q: want a URL such as http://127.0.0.1:8000/v1", endpoint)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1"
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}
