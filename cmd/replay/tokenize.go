package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/synth/tokenizer"
)

func init() {
	register(&command{
		name:    "tokenize",
		summary: "print the token ids of JSON lines {\"text\": ...} read on stdin, one JSON array per line",
		usage:   "--tokenizer FILE [--special] < lines.jsonl",
		example: "  echo '{\"text\": \"Hello world\"}' | replay tokenize --tokenizer samples/tokenizer/mistral/tokenizer.json\n" +
			"  replay tokenize --tokenizer ~/models/llama3/ --special < prompts.jsonl > ids.jsonl",
		setup: func(fs *pflag.FlagSet, std cli) func(ctx context.Context, args []string) error {
			path := fs.String("tokenizer", "", "a Hugging Face repo id (ORG/NAME[@REVISION]), a tokenizer.json file, or a folder holding one")
			special := fs.Bool("special", false, "add the special tokens of the post-processor (BOS etc.)")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return fmt.Errorf("unexpected arguments %q", args)
				}
				if *path == "" {
					return errors.New("--tokenizer is required")
				}
				p, err := runner.FindTokenizer(ctx, *path, std.stderr)
				if err != nil {
					return err
				}
				tk, err := tokenizer.Load(p)
				if err != nil {
					return err
				}
				return tokenizer.EncodeLines(tk, std.stdin, std.stdout, *special, "stdin")
			}
		},
	})
}
