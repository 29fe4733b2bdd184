package cachestudy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/llm-replay/replay/prefixcache"
	"github.com/llm-replay/replay/report"
	"github.com/llm-replay/replay/runner"
)

// Config is a prefix-cache study: the run's configuration (Run.Out is the study's folder; its
// prefix mode, cache reset, checks and plan memory are the study's to set), the KV size that
// turns blocks into GiB (KVBytesPerToken, or a Hugging Face config.json's bytes in
// ModelConfig, read by prefixcache.ParseModelConfig; neither: blocks only), extra capacities
// for the curve, and the engine's capacity in tokens for engines whose metrics do not reveal
// it (0: from the metrics).
type Config struct {
	Run             runner.Config
	KVBytesPerToken int
	ModelConfigName string
	ModelConfig     []byte
	CapacityBlocks  []int
	EngineKVTokens  int64
}

// kv is the study's KV size per token and its description ("" when unknown).
func (sc Config) kv() (prefixcache.KVSize, string, error) {
	switch {
	case sc.KVBytesPerToken < 0:
		return prefixcache.KVSize{}, "", errors.New("--kv-bytes-per-token must be positive")
	case sc.KVBytesPerToken > 0 && sc.ModelConfig != nil:
		return prefixcache.KVSize{}, "", errors.New("--kv-bytes-per-token and --model-config both give the KV size: pass one")
	case sc.KVBytesPerToken > 0:
		return prefixcache.KVSize{BytesPerToken: sc.KVBytesPerToken}, fmt.Sprintf("%d bytes per token (--kv-bytes-per-token)", sc.KVBytesPerToken), nil
	case sc.ModelConfig == nil:
		return prefixcache.KVSize{}, "", nil
	}
	m, err := prefixcache.ParseModelConfig(sc.ModelConfigName, sc.ModelConfig)
	if err != nil {
		return prefixcache.KVSize{}, "", err
	}
	return prefixcache.KVSize{BytesPerToken: m.BytesPerToken}, m.String(), nil
}

// Run answers "how much does prefix caching buy us?" for one trace and one endpoint: the same
// window replayed twice on the same schedule, first with every request given fresh blocks
// (Out/unique), then with the prefixes as traced (Out/traced), the engine's prefix cache reset
// before each where it allows; the LRU curve over the traced arm's prompts; and
// cache_study.json and cache_study.html from both (New, Write).
//
// The unique arm goes first: it can only miss, so it loses nothing to a cache left warm, and
// on an engine that cannot be reset its fresh blocks push older contents out of an LRU cache
// before the traced arm starts.
//
// Errors of an arm that completed (too many failures, client-bound) are returned after both
// arms ran and the study was written, the worst first, so the exit code is a run's.
func Run(ctx context.Context, sc Config) (*Study, error) {
	base := sc.Run
	if base.Stderr == nil {
		base.Stderr = os.Stderr
	}
	sc.Run.Stderr = base.Stderr
	if err := checkStudy(base); err != nil {
		return nil, err
	}
	kv, modelKV, err := sc.kv()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(base.Out, 0o755); err != nil {
		return nil, fmt.Errorf("creating --out: %w", err)
	}
	var arms [2]*arm
	var runErrs []error
	for i, unique := range []bool{true, false} {
		name := Traced
		if unique {
			name = Unique
		}
		a, err := runArm(ctx, base, name, unique)
		if a == nil || a.sum == nil {
			return nil, fmt.Errorf("%s arm: %w", name, err)
		}
		if err != nil {
			if errors.Is(err, runner.ErrInterrupted) {
				return nil, fmt.Errorf("%s arm: %w", name, err)
			}
			runErrs = append(runErrs, fmt.Errorf("%s arm: %w", name, err))
		}
		arms[i] = a
	}
	unique, traced := arms[0], arms[1]
	in, err := studyInput(sc, kv, modelKV, traced, unique)
	if err != nil {
		return nil, err
	}
	st, err := New(in)
	if err != nil {
		return nil, err
	}
	if err := Write(base.Out, st, report.Options{}); err != nil {
		return nil, err
	}
	fmt.Fprintf(base.Stderr, "replay cache-study: wrote %s, %s\n", filepath.Join(base.Out, File), filepath.Join(base.Out, PageFile))
	return st, errors.Join(runErrs...)
}

// checkStudy refuses what a study cannot be: several endpoints (a study is of one), shards
// (both arms must see the whole window), a prefix mode chosen for it.
func checkStudy(cfg runner.Config) error {
	switch {
	case cfg.Out == "":
		return errors.New("--out is required")
	case len(cfg.Endpoints) > 1:
		return errors.New("cache-study studies one endpoint: give one --endpoint")
	case cfg.Schedule.Shards > 1:
		return errors.New("cache-study replays the whole window in each arm: --shard is not available")
	case cfg.UniquePrefixes:
		return errors.New("cache-study runs both prefix modes itself: leave --prefix-mode out")
	case cfg.Body == runner.BodyVerbatim:
		return errors.New("cache-study builds its prompts from the trace's block hashes: --body verbatim sends logged bodies, whose prefixes it cannot make unique")
	}
	return nil
}

// studyInput builds the curve over the traced arm's prompts in send order and the engine's
// capacity in the trace's blocks.
func studyInput(sc Config, kv prefixcache.KVSize, modelKV string, traced, unique *arm) (Input, error) {
	in := Input{Trace: traced.plan.Trace, KV: kv, ModelKV: modelKV, SLO: sc.Run.SLO.String(),
		Dir: sc.Run.Out, Traced: traced.sum, Unique: unique.sum}
	if err := checkPlan(traced.plan); err != nil {
		return in, err
	}
	ideal := traced.plan.Ideal
	in.BlockSize = ideal.BlockSize
	in.KV.BlockTokens = ideal.BlockSize
	c := prefixcache.NewCurve()
	for i := range traced.plan.Requests {
		r := &traced.plan.Requests[i]
		c.AddPrompt(r.BlockHashes, ideal.BlockSize, r.TargetPromptTokens)
	}
	if err := c.Err(); err != nil {
		return in, err
	}
	in.Curve = c
	in.Capacity = traced.capacity
	if in.Capacity == nil {
		in.Capacity = unique.capacity
	}
	switch {
	case sc.EngineKVTokens > 0:
		in.Capacity = &EngineCapacity{Source: "--engine-kv-tokens", Tokens: sc.EngineKVTokens}
	case in.Capacity == nil && traced.capErr != nil:
		fmt.Fprintf(sc.Run.Stderr, "replay cache-study: the engine's KV capacity: %v\n", traced.capErr)
	}
	extra := append([]int(nil), sc.CapacityBlocks...)
	if in.Capacity != nil {
		in.Capacity.TraceBlocks = int(in.Capacity.Tokens / int64(ideal.BlockSize))
		extra = append(extra, max(in.Capacity.TraceBlocks, 1))
	}
	in.Capacities = CurveCapacities(c.Distinct(), extra...)
	return in, nil
}
