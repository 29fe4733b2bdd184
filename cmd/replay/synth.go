package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/synth/tokenizer"
	"github.com/llm-replay/replay/trace"
)

func init() {
	register(&command{
		name:    "synth",
		summary: "Synthesize exact-length prompts that keep the trace's shared prefixes (JSON lines)",
		usage:   "--trace FILE [--format F] --tokenizer FILE --out FILE.jsonl [--seed N] [--block-size N] [--max-prompt-tokens N] [--api chat|completions] [--limit N]",
		example: `  replay synth --trace mooncake.jsonl \
      --tokenizer .cache/tokenizers/qwen3 --out prompts.jsonl --limit 500 --max-prompt-tokens 32768
  scripts/check-synth.sh --tokenizer .cache/tokenizers/qwen3/tokenizer.json prompts.jsonl`,
		setup: setupSynth,
	})
}

func setupSynth(fs *pflag.FlagSet, std cli) func(ctx context.Context, args []string) error {
	var in ingestFlags
	in.add(fs)
	tokPath := fs.String("tokenizer", "", "a Hugging Face repo id (ORG/NAME[@REVISION]), a tokenizer.json, or a folder with tokenizer.json and tokenizer_config.json (required)")
	out := fs.String("out", "", "JSON lines file to write, one request per line (required)")
	seed := fs.Uint64("seed", 0, "seed for the prompt words; the same seed and trace give byte-identical prompts")
	var maxPrompt, limit, overhead, workers int
	intWords(fs, &maxPrompt, "max-prompt-tokens", 0, "cap every prompt at N tokens, its hash list at the blocks that fit (none: no cap; 0 means none too)", none(0))
	api := fs.String("api", "completions", "count for the completions API (post-processor specials such as BOS) or the chat API (chat template)")
	intWords(fs, &limit, "limit", 0, "synthesize only the first N records (none: all of them; 0 means none too)", none(0))
	intWords(fs, &overhead, "chat-overhead", -1, "tokens the server's chat template adds around one user message, when it differs from tokenizer_config.json's (auto: render the template; -1 means auto too)", auto(-1))
	intWords(fs, &workers, "workers", 0, "goroutines verifying prompts by re-encoding (auto: one per core; 0 means auto too)", auto(0))
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return fmt.Errorf("unexpected arguments %q", args)
		}
		opts, err := in.options()
		if err != nil {
			return err
		}
		if *tokPath == "" {
			return errors.New("--tokenizer is required: prompts counted under the wrong tokenizer are the error replay exists to prevent")
		}
		if *out == "" {
			return errors.New("--out is required")
		}
		if *tokPath, err = runner.FindTokenizer(ctx, *tokPath, std.stderr); err != nil {
			return err
		}
		cfg := synth.Config{Seed: *seed, BlockSize: in.blockSize, MaxPromptTokens: maxPrompt, API: synth.API(*api)}
		if cfg.API == synth.APIChat {
			if cfg.Chat, err = chat.LoadTemplate(*tokPath); err != nil {
				return err
			}
			if cfg.Chat.Source == "" {
				fmt.Fprintln(std.stderr, "replay synth: tokenizer_config.json has no chat_template; using chat.DefaultTemplate (Mistral-Instruct form)")
			}
		}
		tok, err := tokenizer.Load(*tokPath)
		if err != nil {
			return err
		}
		if err := runner.SetImageRule(&cfg, *tokPath, tok, in.imageTokens); err != nil {
			return err
		}
		if err := runner.SetAudioRule(&cfg, *tokPath, tok, in.audioRate); err != nil {
			return err
		}
		b, err := synth.New(tok, cfg)
		if err != nil {
			return err
		}
		if overhead >= 0 {
			if err := b.SetChatOverhead(overhead); err != nil {
				return err
			}
		}
		opts.Tokenizer = *tokPath // a request log is counted with the prompts' tokenizer
		return runSynth(ctx, std.stderr, opts, in.trace, b, cfg.API, *out, limit, workers)
	}
}

func runSynth(ctx context.Context, stderr io.Writer, opts ingest.Options, path string, b *synth.Builder, api synth.API, out string, limit, workers int) (err error) {
	r, err := ingest.Open(path, opts)
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(out) // never leave a half-written file that looks complete
		}
	}()
	w := synth.NewWriter(f, api)
	n := 0
	next := func() (trace.Record, error) {
		if limit > 0 && n >= limit {
			return trace.Record{}, io.EOF
		}
		n++
		return r.Next()
	}
	if err := b.Stream(ctx, workers, next, w.Write); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	s := b.Stats()
	fmt.Fprintf(stderr, "replay synth: %d requests to %s (%d capped at --max-prompt-tokens, %d session turns extended, %d restarted, %d repaired, %d adjusted, %d sibling clashes)\n",
		s.Requests, out, s.Capped, s.SessionTurns, s.SessionRestarts, s.Repaired, s.Adjusted, s.SiblingClashes)
	return nil
}
