package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

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
			"  replay run --endpoint http://127.0.0.1:8000/v1 --out out/   # in another terminal: counts as the simulator does, no --tokenizer needed\n" +
			"  replay sim --tokenizer Qwen/Qwen3-8B   # count as that model's server; replay run finds the same tokenizer from /v1/models\n" +
			"  replay sim --zero-cost            # no modeled delay: for measuring a client\n" +
			"  curl -N localhost:8000/v1/chat/completions -d '{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":4,\"stream\":true}'",
		setup: setupSim,
	})
}

func setupSim(fs *pflag.FlagSet, std cli) func(ctx context.Context, args []string) error {
	cfg := sim.DefaultConfig()
	listen := fs.String("listen", "127.0.0.1:8000", "address to listen on")
	tokPath := fs.String("tokenizer", "", "the served model's tokenizer (a Hugging Face repo id ORG/NAME, a tokenizer.json or its folder): count prompts as a real server does (BOS, the chat template with its tools and tool calls); default: the embedded sample tokenizer replay run uses by default, so a run needs no --tokenizer; /v1/models names it (root) with its content's sha256")
	arrivalLog := fs.String("arrival-log", "", "write each API request's arrival (chat, completions, responses, messages, embeddings) to FILE as it comes, on the server's clock: '<unix ns>\\t<X-Request-Id>\\t<socket unix ns>\\t<traceparent>' a line, the first when the handler starts, the third when the request's bytes reached the kernel (0 where unknown), the last the request's W3C traceparent header ('-' when none)")
	serve := fs.StringArray("serve", nil, "also serve model NAME=TOKENIZER (a Hugging Face repo id, a tokenizer.json or its folder), its prompts counted by that tokenizer; repeatable (a --model-map run's models, an adapter served by name as vLLM's --lora-modules does); a request naming a model served by none is answered 404")
	addSimFlags(fs, &cfg, "")
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("unexpected arguments %q", args)
		}
		tmp, err := os.MkdirTemp("", "replay-sim-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		path, err := runner.SimTokenizer(ctx, *tokPath, tmp, std.stderr)
		if err != nil {
			return err
		}
		tk, err := tokenizer.Load(path)
		if err != nil {
			return fmt.Errorf("--tokenizer: %w", err)
		}
		if err := runner.ServerCounting(path, tk, &cfg); err != nil {
			return err
		}
		if err := serveModels(ctx, &cfg, *serve, tmp, std); err != nil {
			return err
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

// serveModels adds each --serve NAME=TOKENIZER to cfg's served models.
func serveModels(ctx context.Context, cfg *sim.Config, serve []string, tmp string, std cli) error {
	for _, s := range serve {
		name, spec, ok := strings.Cut(s, "=")
		if !ok || name == "" || spec == "" {
			return fmt.Errorf("--serve %q: want NAME=TOKENIZER", s)
		}
		path, err := runner.SimTokenizer(ctx, spec, tmp, std.stderr)
		if err != nil {
			return fmt.Errorf("--serve %s: %w", name, err)
		}
		tk, err := tokenizer.Load(path)
		if err != nil {
			return fmt.Errorf("--serve %s: %w", name, err)
		}
		m, err := runner.SimModel(name, path, tk)
		if err != nil {
			return err
		}
		cfg.Models = append(cfg.Models, m)
	}
	return nil
}

// listenSim starts the simulator, logging arrivals when a file is given.
func listenSim(ctx context.Context, addr string, cfg sim.Config, arrivals *os.File) (string, func() error, error) {
	if arrivals == nil {
		return sim.Listen(ctx, addr, cfg)
	}
	return sim.ListenLogging(ctx, addr, cfg, arrivals)
}

// addSimFlags defines the simulated engine's model: its cost model, its limits and its faults.
// replay sim defines them as they are (prefix ""); replay run and the commands built on it
// define the same flags for their built-in simulator as --sim-NAME (prefix "sim-"), with the
// same defaults and help, so the two sets cannot drift apart.
func addSimFlags(fs *pflag.FlagSet, cfg *sim.Config, prefix string) {
	name := func(n string) string { return prefix + n }
	ref := func(n string) string { return "--" + prefix + n } // a flag named in another's help
	help := func(text string) string {
		if prefix == "" {
			return text
		}
		return "simulator: " + text
	}
	fs.StringVar(&cfg.ModelName, name("model-name"), cfg.ModelName, help("model id listed by /v1/models"))
	fs.Int64Var(&cfg.Seed, name("seed"), cfg.Seed, help("seed for step-time jitter and fault injection"))
	fs.BoolVar(&cfg.ZeroCost, name("zero-cost"), cfg.ZeroCost, help("answer at once with no modeled delay (to measure the client)"))
	fs.DurationVar(&cfg.TokenDelay, name("token-delay"), cfg.TokenDelay, help("with "+ref("zero-cost")+": the time between streamed chunks (the first goes at once), a fixed decode speed with no engine, to measure a client holding many open streams"))
	addSimCostFlags(fs, cfg, name, help)
	addSimFaultFlags(fs, cfg, name, ref, help)
}

// addSimCostFlags defines the engine's limits and its step-time cost model.
func addSimCostFlags(fs *pflag.FlagSet, cfg *sim.Config, name, help func(string) string) {
	fs.IntVar(&cfg.BlockSize, name("block-size"), cfg.BlockSize, help("tokens per KV block and prefix-cache block"))
	fs.IntVar(&cfg.NumBlocks, name("kv-blocks"), cfg.NumBlocks, help("KV cache capacity in blocks"))
	fs.IntVar(&cfg.MaxBatch, name("max-batch"), cfg.MaxBatch, help("maximum running sequences"))
	fs.IntVar(&cfg.TokenBudget, name("token-budget"), cfg.TokenBudget, help("tokens per step (decode tokens plus prefill chunks)"))
	fs.IntVar(&cfg.MaxWaiting, name("max-waiting"), cfg.MaxWaiting, help("waiting-queue length beyond which requests get HTTP 429"))
	fs.IntVar(&cfg.MaxModelLen, name("max-model-len"), cfg.MaxModelLen, help("maximum prompt plus max_tokens"))
	fs.IntVar(&cfg.DefaultMaxTokens, name("default-max-tokens"), cfg.DefaultMaxTokens, help("max_tokens when a request gives none"))
	fs.IntVar(&cfg.TokensPerChunk, name("tokens-per-chunk"), cfg.TokensPerChunk, help("tokens per SSE chunk"))
	fs.DurationVar(&cfg.PrefillPerToken, name("prefill-per-token"), cfg.PrefillPerToken, help("prefill time per uncached prompt token"))
	fs.IntVar(&cfg.MaxLoras, name("max-loras"), cfg.MaxLoras, help("LoRA adapters (model-map targets with an adapter) that can be in the running batch at once, as vLLM's max_loras; a request whose adapter finds no slot waits while others run"))
	fs.DurationVar(&cfg.AdapterLoad, name("adapter-load"), cfg.AdapterLoad, help("time to load a LoRA adapter into a slot, charged in the step that admits its first request after it was not loaded"))
	fs.DurationVar(&cfg.EncodePerMediaToken, name("encode-per-media-token"), cfg.EncodePerMediaToken, help("vision/audio encoder time per image or audio token, charged once in the step that starts the request's prefill"))
	fs.DurationVar(&cfg.StepBase, name("step-base"), cfg.StepBase, help("fixed time of each engine step"))
	fs.DurationVar(&cfg.StepPerSeq, name("step-per-seq"), cfg.StepPerSeq, help("added step time per decoding sequence"))
	fs.DurationVar(&cfg.StepPerKVToken, name("step-per-kv-token"), cfg.StepPerKVToken, help("added step time per resident KV token"))
	fs.Float64Var(&cfg.Jitter, name("jitter"), cfg.Jitter, help("relative random spread of step times, in [0,1)"))
}

// addSimFaultFlags defines the faults injected into the simulator's answers.
func addSimFaultFlags(fs *pflag.FlagSet, cfg *sim.Config, name, ref, help func(string) string) {
	f := &cfg.Faults
	fs.Float64Var(&f.ErrorRate, name("fault-error-rate"), f.ErrorRate, help("fraction of requests answered with HTTP 500 (a request gets at most one fault: the fault rates sum to at most 1; with an X-Request-Id header the fault follows from "+ref("seed")+" and that id)"))
	fs.Float64Var(&f.RateLimitRate, name("fault-429-rate"), f.RateLimitRate, help("fraction of requests answered with HTTP 429"))
	fs.Float64Var(&f.BreakRate, name("fault-break-rate"), f.BreakRate, help("fraction of answers whose connection is cut half-way"))
	fs.Float64Var(&f.StallRate, name("fault-stall-rate"), f.StallRate, help("fraction of requests that stall for "+ref("fault-stall")+" at "+ref("fault-stall-at")+", then answer normally"))
	fs.DurationVar(&f.Stall, name("fault-stall"), f.Stall, help("how long a stalled request stalls (> 0 with first-byte; with first-token 0 means until the client goes away)"))
	if f.StallAt == "" {
		f.StallAt = sim.StallFirstByte
	}
	fs.StringVar(&f.StallAt, name("fault-stall-at"), f.StallAt, help("where a stall happens: first-byte (before anything is written) or first-token (after the headers and the first chunk)"))
	fs.Float64Var(&f.GarbageRate, name("fault-garbage-rate"), f.GarbageRate, help("fraction of requests answered HTTP 200 with event-stream frames that are not JSON, then [DONE]"))
	durationWords(fs, &f.RetryAfter, name("fault-retry-after"), f.RetryAfter, help("send Retry-After (whole seconds, rounded up) on every 429 and 503 (none: send none; 0 means none too)"), none(time.Duration(0)))
}
