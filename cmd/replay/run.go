package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/sim"
)

// version is stamped into summary.json.
var version = "dev"

func init() {
	register(&command{
		name:    "run",
		summary: "Replay a trace against an endpoint (or the built-in simulator), open loop and on time",
		usage:   "[--trace FILE] [--endpoint URL --model NAME --tokenizer FILE] [--speed X] --out DIR",
		example: `  # the embedded sample trace against the built-in simulator
  replay run --speed 4 --out out/

  # yesterday's traffic at 2x against a vLLM server, with an SLO
  export OPENAI_API_KEY=...    # only if the server wants one
  replay run --trace mooncake.jsonl --endpoint http://127.0.0.1:8000/v1 \
      --model Qwen/Qwen3-8B --tokenizer ~/models/Qwen3-8B --api chat \
      --speed 2 --slo ttft=500ms,itl=60ms --api-key-env OPENAI_API_KEY --out runs/qwen3-2x

  # a gateway's raw request log, counted with the served model's tokenizer and chat template
  replay run --trace gateway.jsonl --format openai-log --tokenizer ~/models/Qwen3-8B --out runs/log`,
		setup: setupRun,
	})
}

// addRunFlags defines the flags of a replay run (shared by run and sweep) and returns the
// function that turns them into a runner.Config once parsed.
func addRunFlags(fs *pflag.FlagSet) func(args []string) (runner.Config, error) {
	var in ingestFlags
	in.add(fs)
	fs.Lookup("trace").Usage = "trace or access log to replay (default: the embedded sample, samples/azure_conv_2min.csv)"
	var cfg runner.Config
	fs.StringVar(&cfg.Endpoint, "endpoint", "", "OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 (default: start the built-in simulator)")
	fs.StringVar(&cfg.Model, "model", "", "model name sent in every request (required with --endpoint)")
	fs.StringVar(&cfg.Tokenizer, "tokenizer", "", "the served model's tokenizer.json or Hugging Face folder (required with --endpoint)")
	fs.StringVar(&cfg.API, "api", client.APICompletions, "chat or completions")
	fs.Float64Var(&cfg.Schedule.Speed, "speed", 1, "speed factor: 2 sends the trace twice as fast")
	fs.StringVar(&cfg.Out, "out", "", "output folder for requests.parquet, summary.json, report.html (required)")
	fs.IntVar(&cfg.Schedule.MaxConcurrency, "max-concurrency", 0, "ceiling on requests in flight; waits are recorded as queue wait (0: none)")
	fs.DurationVar(&cfg.Schedule.From, "from", 0, "start of the trace window, as an offset from the trace's first record (e.g. 10m)")
	fs.DurationVar(&cfg.Schedule.To, "to", 0, "end of the trace window (0: the end)")
	fs.IntVar(&cfg.Limit, "limit", 0, "replay only the first N records of the window (0: all)")
	fs.DurationVar(&cfg.Schedule.Duration, "duration", 0, "stop sending after this much wall time; unsent requests are counted (0: none)")
	fs.IntVar(&cfg.Warmup, "warmup", 0, "send N throwaway requests of the trace's shape first; left out of the summary")
	seed := fs.Uint64("seed", 1, "prompt text seed: the same seed gives byte-identical prompts")
	fs.IntVar(&cfg.Synth.MaxPromptTokens, "max-prompt-tokens", 0, "cap every prompt at N tokens (0: none); capped requests are counted")
	prefixMode := fs.String("prefix-mode", "trace", "trace: requests share prefixes as the trace's block hashes say; unique: every request gets fresh blocks")
	fs.StringVar(&cfg.SLO, "slo", "", "latency SLO for goodput, e.g. ttft=500ms,itl=60ms,e2e=10s")
	apiKeyEnv := fs.String("api-key-env", "", "environment variable holding the API key")
	apiKeyFile := fs.String("api-key-file", "", "file holding the API key")
	fs.DurationVar(&cfg.Timeout, "timeout", 0, "per-request timeout (0: none)")
	extra := fs.String("extra-body", "", `JSON object merged into every request body, e.g. '{"ignore_eos":true}'`)
	fs.BoolVar(&cfg.SendIDs, "send-ids", false, "completions API: send prompts as token ids (vLLM accepts them)")
	fs.Float64Var(&cfg.MaxErrorRate, "max-error-rate", 0.1, "exit non-zero (3) when more than this fraction of requests failed")
	fs.BoolVar(&cfg.KeepPrompts, "keep-prompts", false, "store each prompt's text in requests.parquet")
	fs.StringVar(&cfg.MetricsURL, "metrics-url", "", "the endpoint's Prometheus page, scraped during the run for vLLM's prefix-cache and queue metrics (default: the endpoint's scheme://host/metrics; none: don't scrape)")
	fs.DurationVar(&cfg.MetricsInterval, "metrics-interval", time.Second, "time between scrapes of --metrics-url")
	fs.Float64Var(&cfg.CostPerHour, "cost-per-hour", 0, "cost of one GPU-hour, for $/M output tokens in the summary")
	fs.IntVar(&cfg.GPUs, "gpus", 1, "GPUs behind the endpoint, with --cost-per-hour")
	sc := sim.DefaultConfig()
	fs.BoolVar(&sc.ZeroCost, "sim-zero-cost", false, "simulator: answer at once with no modeled delay")
	fs.DurationVar(&sc.PrefillPerToken, "sim-prefill-per-token", sc.PrefillPerToken, "simulator: prefill time per uncached prompt token")
	fs.DurationVar(&sc.StepBase, "sim-step-base", sc.StepBase, "simulator: fixed time of each decode step")
	fs.IntVar(&sc.MaxBatch, "sim-max-batch", sc.MaxBatch, "simulator: maximum running sequences")
	fs.Float64Var(&sc.Faults.ErrorRate, "sim-fault-error-rate", 0, "simulator: fraction of requests answered with HTTP 500")
	return func(args []string) (runner.Config, error) {
		if len(args) > 0 {
			return cfg, fmt.Errorf("unexpected arguments %q", args)
		}
		if cfg.Out == "" {
			return cfg, errors.New("--out is required")
		}
		trace := in.trace
		in.trace = "-" // options() insists on a trace; run has a default
		opts, err := in.options()
		if err != nil {
			return cfg, err
		}
		cfg.Trace, cfg.Ingest = trace, opts
		cfg.Synth.Seed = *seed
		cfg.Synth.BlockSize = in.blockSize
		switch *prefixMode {
		case "trace":
		case "unique":
			cfg.UniquePrefixes = true
		default:
			return cfg, fmt.Errorf("--prefix-mode %q: want trace or unique", *prefixMode)
		}
		if *extra != "" {
			if err := json.Unmarshal([]byte(*extra), &cfg.ExtraBody); err != nil {
				return cfg, fmt.Errorf("--extra-body: want a JSON object: %w", err)
			}
		}
		switch {
		case *apiKeyEnv != "" && *apiKeyFile != "":
			return cfg, errors.New("give --api-key-env or --api-key-file, not both")
		case *apiKeyEnv != "":
			if cfg.APIKey, err = client.APIKeyFromEnv(*apiKeyEnv); err != nil {
				return cfg, err
			}
		case *apiKeyFile != "":
			if cfg.APIKey, err = client.APIKeyFromFile(*apiKeyFile); err != nil {
				return cfg, err
			}
		}
		if cfg.MetricsInterval <= 0 {
			return cfg, fmt.Errorf("--metrics-interval %v: want a positive duration", cfg.MetricsInterval)
		}
		cfg.Sim = sc
		cfg.Version = version
		return cfg, nil
	}
}

func setupRun(fs *pflag.FlagSet) func(ctx context.Context, args []string) error {
	config := addRunFlags(fs)
	return func(ctx context.Context, args []string) error {
		cfg, err := config(args)
		if err != nil {
			return err
		}
		_, err = runner.Run(ctx, cfg)
		return runExit(err)
	}
}

// runExit maps a run's outcome to the documented exit codes.
func runExit(err error) error {
	if errors.Is(err, runner.ErrInterrupted) {
		return &exitError{code: 130, err: err}
	}
	if errors.Is(err, runner.ErrTooManyFailures) {
		return &exitError{code: 3, err: err}
	}
	return err
}
