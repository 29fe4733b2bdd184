package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/prefixcache"
	"github.com/llm-replay/replay/runload"
)

// CacheStudyConfig is a prefix-cache study: the run's configuration (Run.Out is the study's
// folder; its prefix mode and cache reset are the study's to set), the KV size that turns
// blocks into GiB (KVBytesPerToken, or a Hugging Face config.json's bytes in ModelConfig, read
// by prefixcache.ParseModelConfig; neither: blocks only), extra capacities for the curve, and
// the engine's capacity in tokens for engines whose metrics do not reveal it (0: from the
// metrics).
type CacheStudyConfig struct {
	Run             Config
	KVBytesPerToken int
	ModelConfigName string
	ModelConfig     []byte
	CapacityBlocks  []int
	EngineKVTokens  int64
}

// kv is the study's KV size per token and its description ("" when unknown).
func (sc CacheStudyConfig) kv() (prefixcache.KVSize, string, error) {
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

// CacheStudy answers "how much does prefix caching buy us?" for one trace and one endpoint:
// the same window replayed twice on the same schedule, first with every request given fresh
// blocks (Out/unique), then with the prefixes as traced (Out/traced), the engine's prefix
// cache reset before each where it allows; the LRU curve over the traced arm's prompts; and
// cache_study.json and cache_study.html from both (analysis.NewCacheStudy).
//
// The unique arm goes first: it can only miss, so it loses nothing to a cache left warm, and
// on an engine that cannot be reset its fresh blocks push older contents out of an LRU cache
// before the traced arm starts.
//
// Errors of an arm that completed (too many failures, client-bound) are returned after both
// arms ran and the study was written, the worst first, so the exit code is a run's.
func CacheStudy(ctx context.Context, sc CacheStudyConfig) (*analysis.CacheStudy, error) {
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
	var arms [2]*studyArm
	var runErrs []error
	for i, unique := range []bool{true, false} {
		cfg := base
		cfg.UniquePrefixes, cfg.ResetCache = unique, true
		name := analysis.CacheStudyTraced
		if unique {
			name = analysis.CacheStudyUnique
		}
		cfg.Out = filepath.Join(base.Out, name)
		cfg.Stderr = prefixed(base.Stderr, name)
		cfg.Stdout = base.Stderr // each arm's table; stdout is the study's verdict
		fmt.Fprintf(base.Stderr, "replay cache-study: %s arm -> %s\n", name, cfg.Out)
		a, err := runArm(ctx, cfg)
		if a == nil || a.sum == nil {
			return nil, fmt.Errorf("%s arm: %w", name, err)
		}
		if err != nil {
			if errors.Is(err, ErrInterrupted) {
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
	in.UniqueValues, in.TracedValues, err = runload.ReadRequestValues(
		filepath.Join(in.Dir, analysis.CacheStudyUnique), filepath.Join(in.Dir, analysis.CacheStudyTraced))
	if err != nil {
		return nil, err
	}
	st, err := analysis.NewCacheStudy(in)
	if err != nil {
		return nil, err
	}
	if err := analysis.WriteCacheStudy(base.Out, st, analysis.ReportOptions{}); err != nil {
		return nil, err
	}
	fmt.Fprintf(base.Stderr, "replay cache-study: wrote %s, %s\n", filepath.Join(base.Out, analysis.CacheStudyFile), filepath.Join(base.Out, analysis.CacheStudyReportFile))
	return st, errors.Join(runErrs...)
}

// checkStudy refuses what a study cannot be: several endpoints (a study is of one), shards
// (both arms must see the whole window), a prefix mode chosen for it.
func checkStudy(cfg Config) error {
	switch {
	case cfg.Out == "":
		return errors.New("--out is required")
	case len(cfg.Endpoints) > 1:
		return errors.New("cache-study studies one endpoint: give one --endpoint")
	case cfg.Schedule.Shards > 1:
		return errors.New("cache-study replays the whole window in each arm: --shard is not available")
	case cfg.UniquePrefixes:
		return errors.New("cache-study runs both prefix modes itself: leave --prefix-mode out")
	case cfg.Body == BodyVerbatim:
		return errors.New("cache-study builds its prompts from the trace's block hashes: --body verbatim sends logged bodies, whose prefixes it cannot make unique")
	}
	return nil
}

// studyArm is one finished arm: its plan (the prompts sent), summary and the engine's
// capacity as its metrics page gave it before the arm's requests.
type studyArm struct {
	p        *plan
	sum      *analysis.Summary
	capacity *analysis.EngineCapacity
	capErr   error
}

// runArm is Run's four steps, keeping the plan (the curve is drawn over its prompts) and
// reading the engine's KV capacity from its metrics page while the target is up.
func runArm(ctx context.Context, cfg Config) (*studyArm, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	p, err := prepare(ctx, cfg, false)
	if err != nil {
		return nil, err
	}
	// Before anything is sent: a window without one block size has no curve to study.
	switch {
	case p.ideal == nil:
		return nil, fmt.Errorf("%s: no block hashes in the window, so no prefix structure to study", p.trace)
	case p.ideal.BlockSize <= 0:
		return nil, fmt.Errorf("%s: the window's records have different block sizes; the curve needs one (give --block-size)", p.trace)
	}
	tg, err := startTarget(ctx, cfg, p)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tg.stop() }()
	a := &studyArm{p: p}
	if tg.metricsURL != "" {
		a.capacity, a.capErr = engineCapacity(ctx, tg.eng.http, tg.metricsURL)
	}
	l := &leg{cfg: cfg, tg: tg}
	if err := execute(ctx, cfg, p, []*leg{l}); err != nil {
		return nil, err
	}
	a.sum, err = finish(cfg, p, tg, l.o)
	return a, err
}

// studyInput builds the curve over the traced arm's prompts in send order and the engine's
// capacity in the trace's blocks.
func studyInput(sc CacheStudyConfig, kv prefixcache.KVSize, modelKV string, traced, unique *studyArm) (analysis.CacheStudyInput, error) {
	in := analysis.CacheStudyInput{Trace: traced.p.trace, KV: kv, ModelKV: modelKV, SLO: sc.Run.SLO,
		Dir: sc.Run.Out, Traced: traced.sum, Unique: unique.sum}
	ideal := traced.p.ideal
	if ideal == nil {
		return in, fmt.Errorf("%s: no block hashes in the window, so no prefix structure to study", traced.p.trace)
	}
	if ideal.BlockSize <= 0 {
		return in, fmt.Errorf("%s: the window's records have different block sizes; the curve needs one (give --block-size)", traced.p.trace)
	}
	in.BlockSize = ideal.BlockSize
	in.KV.BlockTokens = ideal.BlockSize
	c := prefixcache.NewCurve()
	for i := range traced.p.reqs {
		r := &traced.p.reqs[i]
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
		in.Capacity = &analysis.EngineCapacity{Source: "--engine-kv-tokens", Tokens: sc.EngineKVTokens}
	case in.Capacity == nil && traced.capErr != nil:
		fmt.Fprintf(sc.Run.Stderr, "replay cache-study: the engine's KV capacity: %v\n", traced.capErr)
	}
	extra := append([]int(nil), sc.CapacityBlocks...)
	if in.Capacity != nil {
		in.Capacity.TraceBlocks = int(in.Capacity.Tokens / int64(ideal.BlockSize))
		extra = append(extra, max(in.Capacity.TraceBlocks, 1))
	}
	in.Capacities = analysis.CurveCapacities(c.Distinct(), extra...)
	return in, nil
}
