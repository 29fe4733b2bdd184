package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llm-replay/replay/engine"
	"github.com/llm-replay/replay/samples"
)

// tokenizerDigest is a tokenizer's content as one SHA-256: its tokenizer.json and the
// tokenizer_config.json beside it (the chat template and special tokens), so two copies of one
// tokenizer agree wherever they lie and two tokenizers with one name do not. path is a
// tokenizer.json or its folder.
func tokenizerDigest(path string) (string, error) {
	dir, file := path, filepath.Join(path, "tokenizer.json")
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		dir, file = filepath.Dir(path), path
	}
	h := sha256.New()
	for _, f := range []string{file, filepath.Join(dir, "tokenizer_config.json")} {
		b, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) && f != file {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("tokenizer digest: %w", err)
		}
		fmt.Fprintf(h, "%s %d\n", filepath.Base(f), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// SimTokenizer is the tokenizer `replay sim` counts with: --tokenizer (spec, a path or a
// Hugging Face repository id), else the embedded sample replay run counts with by default,
// extracted into dir, so that `replay run --endpoint` at a `replay sim` started either way
// counts as the simulator does with no --tokenizer at all. It says which on w.
func SimTokenizer(ctx context.Context, spec, dir string, w io.Writer) (string, error) {
	if spec != "" {
		return FindTokenizer(ctx, spec, w)
	}
	p, err := samples.Extract(samples.Tokenizer, dir)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(w, "replay sim: no --tokenizer given: counting with the embedded sample tokenizer (Mistral-7B 32k), the one replay run uses by default\n")
	return p, nil
}

// sampleDigest is the embedded sample tokenizer's digest, extracted under dir.
func sampleDigest(dir string) (string, string, error) {
	p, err := samples.Extract(samples.Tokenizer, dir)
	if err != nil {
		return "", "", err
	}
	d, err := tokenizerDigest(p)
	return p, d, err
}

// announcedDigest is the tokenizer digest the endpoint lists for model (replay sim lists its
// own as tokenizer_sha256 beside the model's root; engines list none).
func announcedDigest(s *engine.Served, model string) (digest, root string) {
	if s == nil {
		return "", ""
	}
	for _, m := range s.Models {
		if m.TokenizerSHA256 != "" && (m.ID == model || len(s.Models) == 1) {
			return m.TokenizerSHA256, m.Root
		}
	}
	return "", ""
}

// tokenizerMismatch says how the endpoint's tokenizer differs from the run's, by content,
// when the endpoint lists its own; "" when they agree or the endpoint does not say.
func tokenizerMismatch(tokPath string, s *engine.Served, model string) string {
	theirs, root := announcedDigest(s, model)
	if theirs == "" {
		return ""
	}
	ours, err := tokenizerDigest(tokPath)
	if err != nil || ours == theirs {
		return ""
	}
	return fmt.Sprintf("the endpoint counts with another tokenizer than this run's: %s (sha256 %.12s) against --tokenizer %s (sha256 %.12s)", root, theirs, tokPath, ours)
}

// noteTokenizers gives each leg whose endpoint lists a tokenizer other than the run's the
// words the verdict carries, and says so before the run: its prompts will not be the lengths
// the endpoint counts.
func noteTokenizers(cfg Config, p *plan, legs []*leg, served []engine.Served) {
	for i, l := range legs {
		if i >= len(served) {
			return
		}
		for _, mt := range countedBy(p, l.tg.model) {
			if m := tokenizerMismatch(mt.path, &served[i], mt.model); m != "" {
				if mt.model != l.tg.model { // a --model-map target: say which
					m = mt.model + ": " + m
				}
				l.tg.tokenizerMismatch = m
				fmt.Fprintf(cfg.Stderr, "replay: warning: %s: prompt lengths will not be counted as logged\n", m)
				break
			}
		}
	}
}

// modelPath is a served model and the tokenizer this run counts its prompts with.
type modelPath struct{ model, path string }

// countedBy are the served models whose tokenizers the endpoint's are compared with: the
// run's model and tokenizer, or every --model-map target and its own, by name.
func countedBy(p *plan, model string) []modelPath {
	if p.models == nil {
		return []modelPath{{model, p.tokPath}}
	}
	out := make([]modelPath, 0, len(p.models))
	for name, mt := range p.models {
		out = append(out, modelPath{name, mt.path})
	}
	slices.SortFunc(out, func(a, b modelPath) int { return strings.Compare(a.model, b.model) })
	return out
}
