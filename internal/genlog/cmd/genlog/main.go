// Command genlog writes the seeded request log requestlog is checked on (see package genlog):
//
//	go run ./internal/genlog/cmd/genlog -n 10000 -seed 1 > log.jsonl
//
// -options mixes in per-request options, tools and outcomes (genlog.Config.Options; the log
// then holds no usage.prompt_tokens, which only a model can count).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/llm-replay/replay/internal/genlog"
)

func main() {
	n := flag.Int("n", 10000, "requests to write")
	seed := flag.Uint64("seed", 1, "seed")
	options := flag.Bool("options", false, "mix in per-request options, tools and outcomes")
	flag.Parse()
	truths, err := genlog.GenerateWith(os.Stdout, *n, genlog.Config{Seed: *seed, Options: *options})
	if err != nil {
		fmt.Fprintln(os.Stderr, "genlog:", err)
		os.Exit(1)
	}
	convs := map[int]bool{}
	for _, t := range truths {
		convs[t.Conversation] = true
	}
	fmt.Fprintf(os.Stderr, "genlog: %d requests, %d conversations\n", len(truths), len(convs))
}
