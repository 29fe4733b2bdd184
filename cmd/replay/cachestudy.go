package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/cachestudy"
)

func init() {
	register(&command{
		name:    "cache-study",
		summary: "How much does prefix caching buy? The trace's LRU curve, two paired replays (prefixes as traced, unique) and the verdict",
		usage:   "--trace FILE --endpoint URL --model NAME --tokenizer FILE [--slo LIMITS] [--kv-bytes-per-token N|--model-config FILE] [run flags] --out DIR",
		example: `  # a vLLM server (its /metrics gives the KV capacity; VLLM_SERVER_DEV_MODE=1 lets the cache be reset)
  replay cache-study --trace mooncake.jsonl --endpoint http://127.0.0.1:8000/v1 --model Qwen/Qwen3-8B \
      --tokenizer ~/models/Qwen3-8B --model-config ~/models/Qwen3-8B --slo ttft=500ms --limit 2000 --out runs/cache
  # -> runs/cache/{unique,traced}/ (the usual run files), cache_study.json, cache_study.html

  # an engine whose metrics do not say its KV capacity: give it in tokens
  replay cache-study --trace chat.jsonl --endpoint http://127.0.0.1:11434/v1 --model m --tokenizer ./tok \
      --engine-kv-tokens 8192 --out runs/cache

  # the built-in simulator with a 4,096-block KV cache (no --endpoint)
  replay cache-study --trace chat.jsonl --sim-kv-blocks 4096 --out runs/cache-sim`,
		exits:   runExitCodes,
		grouped: true,
		setup:   setupCacheStudy,
	})
}

// cacheStudyFlags are the study's own flags beside the run's.
type cacheStudyFlags struct {
	blocks, modelConfig string
	kvBytes             int
	engineTokens        int64
}

func (f *cacheStudyFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.blocks, "capacity-blocks", "", "more capacities for the curve, in the trace's blocks: A,B,C or LO-HI (the curve is drawn from 1 block to the trace's distinct blocks in any case)")
	fs.IntVar(&f.kvBytes, "kv-bytes-per-token", 0, "KV cache bytes one token takes (2 x layers x KV heads x head dim x bytes per element), to show capacities in GiB")
	fs.StringVar(&f.modelConfig, "model-config", "", "the model's Hugging Face config.json (or its folder), giving --kv-bytes-per-token")
	fs.Int64Var(&f.engineTokens, "engine-kv-tokens", 0, "the engine's KV cache in tokens, when its metrics do not serve vllm:cache_config_info (e.g. Ollama: context length x parallel slots); marks the curve and gives the prediction")
}

func setupCacheStudy(fs *pflag.FlagSet, std cli) func(ctx context.Context, args []string) error {
	config := addRunFlags(fs, std)
	var f cacheStudyFlags
	f.add(fs)
	return func(ctx context.Context, args []string) error {
		if fs.Changed("prefix-mode") {
			return errors.New("--prefix-mode: cache-study runs both modes (trace and unique) itself")
		}
		cfg, err := config(args)
		if err != nil {
			return err
		}
		sc := cachestudy.Config{Run: cfg, EngineKVTokens: f.engineTokens}
		if f.engineTokens < 0 {
			return errors.New("--engine-kv-tokens must be positive")
		}
		// --sim-kv-blocks is the run's simulator flag; the study curves its capacity.
		if cfg.Sim.NumBlocks <= 0 {
			return errors.New("--sim-kv-blocks must be positive")
		}
		if fs.Changed("sim-kv-blocks") && cfg.Client.BaseURL != "" {
			return errors.New("--sim-kv-blocks sets the built-in simulator's cache: not with --endpoint")
		}
		if f.blocks != "" {
			if sc.CapacityBlocks, err = parseBlocks(f.blocks); err != nil {
				return err
			}
		}
		sc.KVBytesPerToken = f.kvBytes
		if f.modelConfig != "" {
			if sc.ModelConfigName, sc.ModelConfig, err = readModelConfig(f.modelConfig); err != nil {
				return err
			}
		}
		st, err := cachestudy.Run(ctx, sc)
		if st != nil {
			fmt.Fprintln(std.stdout, st.Verdict)
			for _, l := range st.Lines {
				fmt.Fprintln(std.stdout, "  "+l)
			}
			for _, c := range st.Caveat {
				fmt.Fprintln(std.stdout, "  note: "+c)
			}
		}
		return runExit(err)
	}
}
