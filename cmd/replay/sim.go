package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/sim"
	"github.com/llm-replay/replay/synth/tokenizer"
)

func init() {
	register(&command{
		name:    "sim",
		summary: "run the built-in simulated engine (an OpenAI-compatible server with a cost model)",
		usage:   "--listen ADDR [--tokenizer PATH] [cost-model flags] [--seed N] [--zero-cost]",
		example: "  replay sim --listen 127.0.0.1:8000 --max-batch 32 --prefill-per-token 200us\n" +
			"  replay sim --tokenizer samples/tokenizer/mistral   # exact counts for replay run --tokenizer samples/tokenizer/mistral\n" +
			"  replay sim --zero-cost            # no modeled delay: for measuring a client\n" +
			"  curl -N localhost:8000/v1/chat/completions -d '{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":4,\"stream\":true}'",
		setup: setupSim,
	})
}

func setupSim(fs *pflag.FlagSet, std cli) func(ctx context.Context, args []string) error {
	cfg := sim.DefaultConfig()
	listen := fs.String("listen", "127.0.0.1:8000", "address to listen on")
	tokPath := fs.String("tokenizer", "", "the served model's tokenizer.json or folder: count prompts as a real server does (BOS, the chat template with its tools and tool calls); without it prompt counts are approximate (about 4 bytes a token)")
	arrivalLog := fs.String("arrival-log", "", "write each completion request's arrival to FILE as it comes, on the server's clock: '<unix ns>\\t<X-Request-Id>\\t<socket unix ns>' a line, the first when the handler starts, the last when the request's bytes reached the kernel (0 where unknown)")
	addSimFlags(fs, &cfg)
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("unexpected arguments %q", args)
		}
		if *tokPath != "" {
			tk, err := tokenizer.Load(*tokPath)
			if err != nil {
				return err
			}
			if err := runner.ServerCounting(*tokPath, tk, &cfg); err != nil {
				return err
			}
		}
		var arrivals *os.File
		if *arrivalLog != "" {
			f, err := os.Create(*arrivalLog)
			if err != nil {
				return fmt.Errorf("--arrival-log: %w", err)
			}
			defer f.Close()
			arrivals = f
		}
		url, stop, err := listenSim(ctx, *listen, cfg, arrivals)
		if err != nil {
			return err
		}
		mode := "cost model"
		if cfg.ZeroCost {
			mode = "zero-cost"
		}
		fmt.Fprintf(std.stderr, "replay sim: simulated engine (%s, not a real model) listening on %s/v1 (Ctrl-C to stop)\n", mode, url)
		<-ctx.Done()
		return stop()
	}
}

// listenSim starts the simulator, logging arrivals when a file is given.
func listenSim(ctx context.Context, addr string, cfg sim.Config, arrivals *os.File) (string, func() error, error) {
	if arrivals == nil {
		return sim.Listen(ctx, addr, cfg)
	}
	return sim.ListenLogging(ctx, addr, cfg, arrivals)
}

// addSimFlags defines the simulated engine's model: its cost model, its limits and its faults.
func addSimFlags(fs *pflag.FlagSet, cfg *sim.Config) {
	fs.StringVar(&cfg.ModelName, "model-name", cfg.ModelName, "model id listed by /v1/models")
	fs.Int64Var(&cfg.Seed, "seed", cfg.Seed, "seed for step-time jitter and fault injection")
	fs.BoolVar(&cfg.ZeroCost, "zero-cost", false, "answer at once with no modeled delay (to measure the client)")
	fs.DurationVar(&cfg.TokenDelay, "token-delay", 0, "with --zero-cost: the time between streamed chunks (the first goes at once), a fixed decode speed with no engine, to measure a client holding many open streams")
	fs.IntVar(&cfg.BlockSize, "block-size", cfg.BlockSize, "tokens per KV block and prefix-cache block")
	fs.IntVar(&cfg.NumBlocks, "kv-blocks", cfg.NumBlocks, "KV cache capacity in blocks")
	fs.IntVar(&cfg.MaxBatch, "max-batch", cfg.MaxBatch, "maximum running sequences")
	fs.IntVar(&cfg.TokenBudget, "token-budget", cfg.TokenBudget, "tokens per step (decode tokens plus prefill chunks)")
	fs.IntVar(&cfg.MaxWaiting, "max-waiting", cfg.MaxWaiting, "waiting-queue length beyond which requests get HTTP 429")
	fs.IntVar(&cfg.MaxModelLen, "max-model-len", cfg.MaxModelLen, "maximum prompt plus max_tokens")
	fs.IntVar(&cfg.DefaultMaxTokens, "default-max-tokens", cfg.DefaultMaxTokens, "max_tokens when a request gives none")
	fs.IntVar(&cfg.TokensPerChunk, "tokens-per-chunk", cfg.TokensPerChunk, "tokens per SSE chunk")
	fs.DurationVar(&cfg.PrefillPerToken, "prefill-per-token", cfg.PrefillPerToken, "prefill time per uncached prompt token")
	fs.DurationVar(&cfg.StepBase, "step-base", cfg.StepBase, "fixed time of each engine step")
	fs.DurationVar(&cfg.StepPerSeq, "step-per-seq", cfg.StepPerSeq, "added step time per decoding sequence")
	fs.DurationVar(&cfg.StepPerKVToken, "step-per-kv-token", cfg.StepPerKVToken, "added step time per resident KV token")
	fs.Float64Var(&cfg.Jitter, "jitter", cfg.Jitter, "relative random spread of step times, in [0,1)")
	fs.Float64Var(&cfg.Faults.ErrorRate, "fault-error-rate", 0, "fraction of requests answered with HTTP 500 (a request gets at most one fault: the fault rates sum to at most 1; with an X-Request-Id header the fault follows from --seed and that id)")
	fs.Float64Var(&cfg.Faults.RateLimitRate, "fault-429-rate", 0, "fraction of requests answered with HTTP 429")
	fs.Float64Var(&cfg.Faults.BreakRate, "fault-break-rate", 0, "fraction of answers whose connection is cut half-way")
	fs.Float64Var(&cfg.Faults.StallRate, "fault-stall-rate", 0, "fraction of requests that stall for --fault-stall at --fault-stall-at, then answer normally")
	fs.DurationVar(&cfg.Faults.Stall, "fault-stall", 0, "how long a stalled request stalls (> 0 with first-byte; with first-token 0 means until the client goes away)")
	fs.StringVar(&cfg.Faults.StallAt, "fault-stall-at", sim.StallFirstByte, "where a stall happens: first-byte (before anything is written) or first-token (after the headers and the first chunk)")
	fs.Float64Var(&cfg.Faults.GarbageRate, "fault-garbage-rate", 0, "fraction of requests answered HTTP 200 with event-stream frames that are not JSON, then [DONE]")
	fs.DurationVar(&cfg.Faults.RetryAfter, "fault-retry-after", 0, "send Retry-After (whole seconds, rounded up) on every 429 and 503; 0 sends none")
}
