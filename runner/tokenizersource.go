package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/llm-replay/replay/engine"
	"github.com/llm-replay/replay/hfhub"
	"github.com/llm-replay/replay/media"
)

// FindTokenizer turns a --tokenizer value into what synth/tokenizer loads: a tokenizer.json
// or folder on disk as it is, or a Hugging Face repository id (ORG/NAME[@REVISION]) found in
// the Hugging Face cache or fetched into it (package hfhub), saying which on w.
func FindTokenizer(ctx context.Context, spec string, w io.Writer) (string, error) {
	ref, ok := hfhub.ParseRef(spec)
	if !ok {
		return spec, nil // a path: loading it says what is wrong with it
	}
	snap, err := hfhub.Resolve(ctx, ref, hfhub.FromEnv())
	if err != nil {
		return "", fmt.Errorf("--tokenizer %s: %w", spec, err)
	}
	fmt.Fprintf(w, "replay: tokenizer: %s %s\n", ref, snap.Where())
	return snap.Dir, nil
}

// FindLoggedModel turns a --logged-model value into what requestlog reads: a hosted family's
// name or a folder on disk as it is, or a Hugging Face repository id found in the cache or
// fetched into it, as FindTokenizer does (with its processor's files).
func FindLoggedModel(ctx context.Context, spec string, w io.Writer) (string, error) {
	if spec == "" {
		return "", nil
	}
	if _, hosted := media.LoggedRule(spec); hosted {
		return spec, nil
	}
	if _, err := os.Stat(spec); err == nil {
		return spec, nil
	}
	if _, ok := hfhub.ParseRef(spec); !ok {
		return spec, nil // requestlog names what it is not
	}
	dir, err := FindTokenizer(ctx, spec, w)
	if err != nil {
		return "", fmt.Errorf("--logged-model: %w", err)
	}
	return dir, nil
}

// servedTokenizer is the tokenizer of the endpoint's model, from the names the endpoint gives
// for it (engine.TokenizerNames: vLLM's /v1/models root, SGLang's tokenizer_path, the model
// id): the first that is a tokenizer folder on this machine or a Hugging Face repository
// found in the cache or on the hub. served is the endpoint's /v1/models answer (asked here
// when nil). The error says what was tried and what to pass.
func servedTokenizer(ctx context.Context, cfg Config, served *engine.Served) (string, error) {
	e := Endpoint{URL: cfg.Client.BaseURL, Model: cfg.Client.Model, APIKey: cfg.Client.APIKey}
	if served == nil {
		s, err := preflightOne(ctx, cfg, e)
		if err != nil {
			return "", err
		}
		served = &s
	}
	base, err := baseURL(e.URL)
	if err != nil {
		return "", err
	}
	hc, err := preflightClient(cfg, e, base)
	if err != nil {
		return "", err
	}
	if digest, _ := announcedDigest(served, e.Model); digest != "" {
		p, sample, err := sampleDigest(filepath.Join(cfg.Out, ".sample"))
		if err == nil && sample == digest {
			fmt.Fprintf(cfg.Stderr, "replay: tokenizer: the embedded sample (Mistral-7B 32k), the one the endpoint lists by content (sha256 %.12s)\n", digest)
			return p, nil
		}
	}
	var tried []string
	for _, n := range engine.TokenizerNames(ctx, hc, base, *served, e.Model) {
		if st, err := os.Stat(filepath.Join(n.Name, "tokenizer.json")); err == nil && st.Mode().IsRegular() {
			fmt.Fprintf(cfg.Stderr, "replay: tokenizer: %s from %s, a folder on this machine\n", n.Name, n.From)
			return n.Name, nil
		}
		ref, ok := hfhub.ParseRef(n.Name)
		if !ok {
			tried = append(tried, fmt.Sprintf("%q (%s) is neither a tokenizer folder here nor a Hugging Face repository id", n.Name, n.From))
			continue
		}
		snap, err := hfhub.Resolve(ctx, ref, hfhub.FromEnv())
		if err != nil {
			tried = append(tried, fmt.Sprintf("%q (%s): %v", n.Name, n.From, err))
			continue
		}
		fmt.Fprintf(cfg.Stderr, "replay: tokenizer: %s from %s, %s\n", ref, n.From, snap.Where())
		return snap.Dir, nil
	}
	return "", fmt.Errorf("--tokenizer is required with --endpoint unless the endpoint names its model's tokenizer: prompt lengths must be counted by the served model's own tokenizer, and %s; pass --tokenizer with the model's Hugging Face repository id (ORG/NAME), its tokenizer.json or its folder",
		strings.Join(tried, "; "))
}
