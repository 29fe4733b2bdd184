// Command genlog writes the seeded request log requestlog is checked on (see package genlog):
//
//	go run ./internal/genlog/cmd/genlog -n 10000 -seed 1 > log.jsonl
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
	flag.Parse()
	truths, err := genlog.Generate(os.Stdout, *n, *seed)
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
