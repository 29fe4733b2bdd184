package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/runner"
)

// engineFlags are the flags of the endpoint's serving engine: --engine, --reset-cache, and
// --metrics-url made repeatable (the engine's page first, then GPU exporters).
type engineFlags struct {
	engine     string
	resetCache bool
	metrics    []string
}

// withEngineFlags defines the engine's flags on fs, which addMeasures has already given
// --metrics-url, and returns config with them applied to the runner.Config it builds.
func withEngineFlags(fs *pflag.FlagSet, config func(args []string) (runner.Config, error)) func(args []string) (runner.Config, error) {
	f := &engineFlags{}
	f.add(fs)
	return func(args []string) (runner.Config, error) {
		cfg, err := config(args)
		if err != nil {
			return cfg, err
		}
		return cfg, f.apply(&cfg)
	}
}

// metricsURLUsage is --metrics-url's help once it is repeatable.
const metricsURLUsage = "a Prometheus page scraped during the run; repeatable. The first is the engine's own " +
	"(auto, the default: where the engine serves it under --endpoint, e.g. /metrics, trtllm-serve's /prometheus/metrics; none for engines " +
	"that serve none, such as Ollama; none: don't scrape it); each further one a GPU exporter such as DCGM's " +
	"(http://HOST:9400/metrics), scraped into gpu_metrics.jsonl, gpu_metrics-2.jsonl, ... for per-GPU utilization, power and " +
	"memory and the energy per output token"

func (f *engineFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.engine, "engine", "auto", "the serving engine: "+strings.Join(runner.EngineNames(), ", ")+
		"; auto detects it from the endpoint (/v1/models, /version, /metrics, ...). It picks the fields that force output "+
		"lengths (ignore_eos, min_tokens; checked by one probe request before the run), the metrics page and its names")
	fs.BoolVar(&f.resetCache, "reset-cache", false, "reset the engine's prefix cache before the measured run (after --warmup; "+
		"each sweep step again): vLLM's /reset_prefix_cache (needs VLLM_SERVER_DEV_MODE=1), SGLang's /flush_cache, "+
		"llama.cpp's slot erase (POST /slots/ID?action=erase for each slot; needs --slot-save-path, and --cache-ram 0 so "+
		"no host-memory prompt cache outlives it); summary.json says whether it was reset")
	// addMeasures defined --metrics-url as one string; it becomes repeatable here, the same
	// flag with a string-array value (pflag's own), so --help lists it once.
	fl := fs.Lookup("metrics-url")
	if fl == nil {
		fs.StringArrayVar(&f.metrics, "metrics-url", nil, metricsURLUsage)
		return
	}
	tmp := pflag.NewFlagSet("metrics-url", pflag.ContinueOnError)
	tmp.StringArrayVar(&f.metrics, fl.Name, nil, metricsURLUsage)
	arr := tmp.Lookup(fl.Name)
	fl.Value, fl.DefValue, fl.Usage = arr.Value, arr.DefValue, arr.Usage
}

// apply checks the flags and puts them into cfg.
func (f *engineFlags) apply(cfg *runner.Config) error {
	if err := runner.CheckEngine(f.engine); err != nil {
		return err
	}
	cfg.Engine, cfg.ResetCache = f.engine, f.resetCache
	cfg.MetricsURL, cfg.GPUMetricsURLs = "", nil
	if len(f.metrics) > 0 {
		cfg.MetricsURL, cfg.GPUMetricsURLs = f.metrics[0], f.metrics[1:]
	}
	if cfg.MetricsURL == wordAuto {
		cfg.MetricsURL = "" // the engine's own page, as when none is given
	}
	for _, u := range cfg.GPUMetricsURLs {
		if u == wordNone || u == wordAuto || u == "" {
			return fmt.Errorf("--metrics-url %q: only the first --metrics-url (the engine's page) may be none or auto; the others are GPU exporters' pages", u)
		}
	}
	return nil
}
