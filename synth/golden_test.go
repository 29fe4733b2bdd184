package synth

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/internal/testenv"
	"github.com/llm-replay/replay/synth/tokenizer"
)

var update = flag.Bool("update", false, "rewrite the golden checksums and write the synthesized files to $TMPDIR/synth-golden for scripts/check-synth.sh")

// The golden run: the first 500 Mooncake records, prompts capped at 16k tokens, seed 1.
const (
	goldenRecords = 500
	goldenCap     = 16384
	goldenSeed    = 1
)

var goldens = []struct {
	tok string
	api API
}{
	{"qwen3", APICompletions},
	{"llama2", APICompletions},
	{"qwen3", APIChat},
	{"llama2", APIChat},
}

// toks keeps loaded tokenizers for the test binary's life (loading takes seconds).
var toks sync.Map

// loadTok loads a real tokenizer from the cache, or fails the test.
func loadTok(t testing.TB, name string) tokenizer.Tokenizer {
	t.Helper()
	if tok, ok := toks.Load(name); ok {
		return tok.(tokenizer.Tokenizer)
	}
	tok, err := tokenizer.Load(testenv.Tokenizer(t, name))
	if err != nil {
		t.Fatalf("loading %s: %v", name, err)
	}
	toks.Store(name, tok)
	return tok
}

// newBuilder loads tokenizer name and builds a Builder for cfg (reading the chat template
// from the tokenizer's folder for the chat API).
func newBuilder(t testing.TB, name string, cfg Config) *Builder {
	t.Helper()
	tok := loadTok(t, name)
	if cfg.API == APIChat {
		var err error
		if cfg.Chat, err = chat.LoadTemplate(testenv.Tokenizer(t, name)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := New(tok, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGoldenMooncake synthesizes the golden run and checks (1) every prompt re-encodes with our
// tokenizer to exactly its target, (2) the output is byte-identical to the committed checksum
// (same seed, same bytes, on any machine), and (3) the Rust reference tokenizer's counts of that
// very file, committed as .refcounts by scripts/check-synth.sh, equal the targets. To
// regenerate: go test ./synth -run TestGoldenMooncake -update, then for each file printed run
// scripts/check-synth.sh --tokenizer TOKENIZER --counts-out synth/testdata/golden/NAME.refcounts FILE.
func TestGoldenMooncake(t *testing.T) {
	recs := mooncake(t, goldenRecords)
	for _, g := range goldens {
		name := g.tok + "_" + string(g.api)
		t.Run(name, func(t *testing.T) {
			if testing.Short() && g.api == APIChat {
				t.Skip("-short: the chat goldens take a minute or more on a busy machine")
			}
			b := newBuilder(t, g.tok, Config{Seed: goldenSeed, MaxPromptTokens: goldenCap, API: g.api})
			h := sha256.New()
			var out io.Writer = h
			var file string
			if *update {
				dir := filepath.Join(os.TempDir(), "synth-golden")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				file = filepath.Join(dir, name+".jsonl")
				f, err := os.Create(file)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				out = io.MultiWriter(h, f)
			}
			w := NewWriter(out, g.api)
			var targets []int
			err := b.Stream(context.Background(), 0, feed(recs), func(r Request) error {
				if len(r.PromptIDs) != r.TargetPromptTokens {
					t.Errorf("%s: %d tokens after re-encoding, want %d", where(r.Record, r.Index), len(r.PromptIDs), r.TargetPromptTokens)
				}
				targets = append(targets, r.TargetPromptTokens)
				return w.Write(r)
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			sum := hex.EncodeToString(h.Sum(nil))
			base := filepath.Join("testdata", "golden", name)
			if *update {
				if err := os.WriteFile(base+".sha256", []byte(sum+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s; now run: scripts/check-synth.sh --tokenizer %s --counts-out synth/%s.refcounts %s",
					file, filepath.Join(".cache", "tokenizers", g.tok, "tokenizer.json"), base, file)
				return
			}
			want, err := os.ReadFile(base + ".sha256")
			if err != nil {
				t.Fatal(err)
			}
			if sum != strings.TrimSpace(string(want)) {
				t.Fatalf("synthesized prompts changed: sha256 %s, golden %s (the same seed must give byte-identical output everywhere; if the change is intended, run with -update and re-check with the reference)", sum, strings.TrimSpace(string(want)))
			}
			ref, err := readRefCounts(base + ".refcounts")
			if err != nil {
				t.Fatal(err)
			}
			if len(ref) != len(targets) {
				t.Fatalf("%s.refcounts has %d counts for %d prompts", base, len(ref), len(targets))
			}
			exact := 0
			for i, n := range ref {
				if n == targets[i] {
					exact++
				} else {
					t.Errorf("prompt %d: the reference counts %d tokens, target %d", i, n, targets[i])
				}
			}
			t.Logf("%d/%d prompts re-count to the target with the Rust reference (sha256 %s…)", exact, len(targets), sum[:12])
		})
	}
}

// readRefCounts reads "index count" lines, in index order.
func readRefCounts(path string) ([]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var counts []int
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 {
			return nil, fmt.Errorf("%s:%d: want \"index count\"", path, line)
		}
		idx, err1 := strconv.Atoi(fields[0])
		n, err2 := strconv.Atoi(fields[1])
		if err1 != nil || err2 != nil || idx != len(counts) {
			return nil, fmt.Errorf("%s:%d: bad line %q", path, line, sc.Text())
		}
		counts = append(counts, n)
	}
	return counts, sc.Err()
}
