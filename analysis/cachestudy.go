package analysis

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llm-replay/replay/prefixcache"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/stats"
)

// The cache study's files inside its folder, beside its arms' run folders.
const (
	CacheStudyFile       = runfolder.CacheStudy
	CacheStudyReportFile = runfolder.CacheStudyReport
	CacheStudyTraced     = "traced"
	CacheStudyUnique     = "unique"
)

// CacheStudyConfidence is the level of the study's paired intervals and test.
const CacheStudyConfidence = 0.95

// CacheCurvePoint is one capacity of the trace's LRU curve: the share of blocks an LRU cache of
// that many trace blocks would hold when asked, and the share of prompt tokens those blocks
// are (what engines report). GiB is the capacity's KV cache, when the KV size is known.
type CacheCurvePoint struct {
	CapacityBlocks int      `json:"capacity_blocks"`
	GiB            *float64 `json:"gib,omitempty"`
	BlockHitPct    float64  `json:"block_hit_pct"`
	TokenHitPct    float64  `json:"token_hit_pct"`
}

// EngineCapacity is the engine's configured KV cache, as its metrics (or the user) gave it:
// Blocks of BlockSize tokens in the engine's own blocks, Tokens in all, and TraceBlocks the
// same in the trace's blocks, the curve's unit (whole blocks, rounded down).
type EngineCapacity struct {
	Source      string   `json:"source"`
	Blocks      int      `json:"engine_blocks,omitempty"`
	BlockSize   int      `json:"engine_block_size,omitempty"`
	Tokens      int64    `json:"tokens"`
	TraceBlocks int      `json:"trace_blocks"`
	GiB         *float64 `json:"gib,omitempty"`
}

// CacheStudyArm is one of the study's two replays of the same window: its folder and the
// figures the verdict compares.
type CacheStudyArm struct {
	Dir          string   `json:"dir"`
	Verdict      string   `json:"verdict"`
	CacheReset   string   `json:"cache_reset,omitempty"`
	Requests     int64    `json:"requests"`
	OK           int64    `json:"ok"`
	PromptTokens int64    `json:"prompt_tokens"`
	CachedTokens int64    `json:"cached_tokens"`
	UsageHitPct  *float64 `json:"usage_hit_pct"`
	ServerHitPct *float64 `json:"server_hit_pct"`
	TTFTP50      float64  `json:"ttft_p50_ms"`
	TTFTP95      float64  `json:"ttft_p95_ms"`
	ReqS         float64  `json:"req_s"`
	OutputTokS   float64  `json:"output_tok_s"`
	GoodputPct   *float64 `json:"goodput_pct,omitempty"`
	GoodputReqS  *float64 `json:"goodput_req_s,omitempty"`
}

// PrefillSaved is the prompt tokens the engine did not compute in the traced arm beyond the
// unique one (which shares no prefix, so its hits are what caching gives without reuse), by
// the source that counted them: usage (cached_tokens) or the engine's counters.
type PrefillSaved struct {
	Source       string  `json:"source"`
	Tokens       int64   `json:"tokens"`
	PromptTokens int64   `json:"prompt_tokens"`
	Pct          float64 `json:"pct"`
}

// CacheStudy is cache_study.json: the trace's prefix structure (ideal hit rate and LRU curve),
// the engine's capacity when known, the two arms, and the verdict: what caching saved, its
// TTFT effect per request (traced minus unique, paired by request id) and the measured hit
// rate against the curve's prediction at the engine's capacity.
type CacheStudy struct {
	Verdict string   `json:"verdict"`
	Lines   []string `json:"lines"`
	Trace   string   `json:"trace"`
	// BlockSize is the trace's tokens per block, the curve's unit.
	BlockSize       int    `json:"block_size"`
	Requests        int64  `json:"requests"`
	DistinctBlocks  int    `json:"distinct_blocks"`
	KVBytesPerToken int    `json:"kv_bytes_per_token,omitempty"`
	ModelKV         string `json:"model_kv,omitempty"`
	// IdealBlockHitPct and IdealTokenHitPct are an infinite cache's.
	IdealBlockHitPct float64           `json:"ideal_block_hit_pct"`
	IdealTokenHitPct float64           `json:"ideal_token_hit_pct"`
	Curve            []CacheCurvePoint `json:"curve"`
	Capacity         *EngineCapacity   `json:"engine_capacity"`
	// PredictedHitPct is the curve's token hit rate at the engine's capacity (null without
	// one); MeasuredHitPct the traced arm's, from usage, else the engine's counters.
	PredictedHitPct *float64      `json:"predicted_hit_pct"`
	MeasuredHitPct  *float64      `json:"measured_hit_pct"`
	MeasuredSource  string        `json:"measured_source,omitempty"`
	PrefillSaved    *PrefillSaved `json:"prefill_saved"`
	// TTFT and E2E are the paired tests with A the unique arm and B the traced one: a
	// negative difference is what caching bought.
	TTFT PairedTest `json:"ttft"`
	// TTFTMeanDiffMS is the mean of the per-request TTFT differences: when fewer than half
	// the requests hit, the median difference is a miss's, about zero, and the mean is what
	// the hits saved spread over all requests.
	TTFTMeanDiffMS float64                  `json:"ttft_mean_diff_ms"`
	E2E            PairedTest               `json:"e2e"`
	SLO            string                   `json:"slo,omitempty"`
	Arms           map[string]CacheStudyArm `json:"arms"`
	Pairs          []Pair                   `json:"-"` // the TTFT pairs, for the plot
	Caveat         []string                 `json:"caveats,omitempty"`
}

// CacheStudyInput is what a finished study hands to NewCacheStudy: the curve over the traced
// arm's prompts in send order (Curve.AddPrompt), the capacities to show, the KV size (zero
// when unknown), the engine's capacity when known, and the arms' folders and summaries.
type CacheStudyInput struct {
	Trace      string
	BlockSize  int
	Curve      *prefixcache.Curve
	Capacities []int
	KV         prefixcache.KVSize
	ModelKV    string
	Capacity   *EngineCapacity
	SLO        string
	// Dir is the study's folder; the arms' folders are under it.
	Dir            string
	Traced, Unique *Summary
	// TracedValues and UniqueValues are the arms' per-request values for the paired tests,
	// read from their rows by the caller (runload.ReadRequestValues): analysis reads no
	// Parquet.
	TracedValues, UniqueValues *RequestValues
}

// NewCacheStudy computes the study from its input.
func NewCacheStudy(in CacheStudyInput) (*CacheStudy, error) {
	if in.Curve == nil || in.Traced == nil || in.Unique == nil || in.TracedValues == nil || in.UniqueValues == nil {
		return nil, errors.New("cache study: the curve and both arms' summaries and request values are needed")
	}
	inf := in.Curve.At(0)
	st := &CacheStudy{Trace: in.Trace, BlockSize: in.BlockSize, Requests: in.Traced.Requests.Total,
		DistinctBlocks: in.Curve.Distinct(), ModelKV: in.ModelKV, SLO: in.SLO, Capacity: in.Capacity,
		IdealBlockHitPct: round3(100 * inf.Rate()), IdealTokenHitPct: round3(100 * in.Curve.TokensAt(0).Rate())}
	if in.KV.BytesPerToken > 0 {
		st.KVBytesPerToken = in.KV.BytesPerToken
	}
	st.Curve = curvePoints(in.Curve, in.Capacities, in.KV)
	if c := in.Capacity; c != nil {
		if in.KV.BytesPerToken > 0 && c.GiB == nil {
			g := round3(float64(c.Tokens) * float64(in.KV.BytesPerToken) / prefixcache.GiB)
			c.GiB = &g
		}
		v := round3(100 * in.Curve.TokensAt(max(c.TraceBlocks, 1)).Rate())
		st.PredictedHitPct = &v
	}
	st.Arms = map[string]CacheStudyArm{
		CacheStudyTraced: armOf(filepath.Join(in.Dir, CacheStudyTraced), in.Traced),
		CacheStudyUnique: armOf(filepath.Join(in.Dir, CacheStudyUnique), in.Unique),
	}
	st.measured()
	st.prefillSaved()
	va, vb := in.UniqueValues, in.TracedValues
	o := PairedOptions{Confidence: CacheStudyConfidence}
	st.Pairs = stats.Pairs(va.TTFT, vb.TTFT)
	st.TTFT = stats.PairedOf("ttft", st.Pairs, o)
	if len(st.Pairs) > 0 {
		var sum float64
		for _, p := range st.Pairs {
			sum += p.Diff()
		}
		st.TTFTMeanDiffMS = round3(sum / float64(len(st.Pairs)))
	}
	st.E2E = stats.Paired("e2e", va.E2E, vb.E2E, o)
	st.caveats(in)
	st.verdict()
	return st, nil
}

// curvePoints are the curve at each capacity, smallest first, then the infinite cache.
func curvePoints(c *prefixcache.Curve, caps []int, kv prefixcache.KVSize) []CacheCurvePoint {
	caps = slices.Clone(caps)
	slices.Sort(caps)
	caps = slices.Compact(caps)
	caps = slices.DeleteFunc(caps, func(n int) bool { return n <= 0 })
	caps = append(caps, 0)
	out := make([]CacheCurvePoint, 0, len(caps))
	for i, p := range c.Points(caps) {
		cp := CacheCurvePoint{CapacityBlocks: p.CapacityBlocks, BlockHitPct: round3(100 * p.Rate()),
			TokenHitPct: round3(100 * c.TokensAt(caps[i]).Rate())}
		if kv.BytesPerToken > 0 && kv.BlockTokens > 0 && p.CapacityBlocks > 0 {
			g := kv.GiB(p.CapacityBlocks)
			cp.GiB = &g
		}
		out = append(out, cp)
	}
	return out
}

// CurveCapacities are the capacities a study's curve is drawn at by default: log-spaced from
// one block to the trace's distinct blocks (where every capacity holds the whole working set),
// about four a decade, with the engine's capacity and any asked for among them.
func CurveCapacities(distinct int, extra ...int) []int {
	out := append([]int(nil), extra...)
	if distinct < 1 {
		return out
	}
	hi := float64(distinct)
	n := max(2, int(math.Ceil(4*math.Log10(hi)))+1)
	for i := range n {
		v := int(math.Round(math.Pow(hi, float64(i)/float64(n-1))))
		out = append(out, max(v, 1))
	}
	return out
}

func armOf(dir string, s *Summary) CacheStudyArm {
	a := CacheStudyArm{Dir: dir, Verdict: s.Verdict, Requests: s.Requests.Total, OK: s.Requests.OK,
		PromptTokens: s.Cache.PromptTokens, CachedTokens: s.Cache.CachedTokens,
		UsageHitPct: s.Cache.HitPct, ServerHitPct: s.Cache.ServerHitPct,
		TTFTP50: s.TTFT.P50, TTFTP95: s.TTFT.P95, ReqS: s.Throughput.ReqS, OutputTokS: s.Throughput.OutputTokS}
	if e := s.Run.Engine; e != nil {
		a.CacheReset = e.CacheReset
	}
	if s.Run.Simulated {
		a.CacheReset = cacheCold // each arm starts its own in-process simulator
	}
	if g := s.Goodput; g != nil {
		pct, rs := g.AllPct, g.ReqS
		a.GoodputPct, a.GoodputReqS = &pct, &rs
	}
	return a
}

// measured is the traced arm's hit rate: usage when the engine reported cached tokens, else
// its counters.
func (st *CacheStudy) measured() {
	t := st.Arms[CacheStudyTraced]
	switch {
	case t.UsageHitPct != nil && t.CachedTokens > 0:
		st.MeasuredHitPct, st.MeasuredSource = t.UsageHitPct, "usage"
	case t.ServerHitPct != nil:
		st.MeasuredHitPct, st.MeasuredSource = t.ServerHitPct, "metrics"
	}
	// Usage with no cached token at all is left unmeasured: some engines (Ollama) never
	// report cached_tokens, and a hit rate of 0 would read as a measurement.
}

// prefillSaved counts the cached prompt tokens of the traced arm beyond the unique arm's, from
// usage when the traced arm reported any, else from the engine's counters.
func (st *CacheStudy) prefillSaved() {
	t, u := st.Arms[CacheStudyTraced], st.Arms[CacheStudyUnique]
	if t.CachedTokens > 0 && t.PromptTokens > 0 {
		saved := t.CachedTokens - u.CachedTokens
		st.PrefillSaved = &PrefillSaved{Source: "usage", Tokens: saved, PromptTokens: t.PromptTokens, Pct: pct(saved, t.PromptTokens)}
		return
	}
	if t.ServerHitPct != nil && t.PromptTokens > 0 {
		// The counters' rate over the arm's prompt tokens, less the unique arm's.
		rate := *t.ServerHitPct
		if u.ServerHitPct != nil {
			rate -= *u.ServerHitPct
		}
		saved := int64(math.Round(rate / 100 * float64(t.PromptTokens)))
		st.PrefillSaved = &PrefillSaved{Source: "metrics", Tokens: saved, PromptTokens: t.PromptTokens, Pct: pct(saved, t.PromptTokens)}
	}
}

// cacheCold is an arm's cache state when the arm had an engine of its own.
const cacheCold = "cold: a new built-in simulator for this arm"

// caveats are what the reader must know before trusting the comparison.
func (st *CacheStudy) caveats(in CacheStudyInput) {
	t, u := st.Arms[CacheStudyTraced], st.Arms[CacheStudyUnique]
	for _, a := range []struct {
		name string
		arm  CacheStudyArm
	}{{CacheStudyUnique, u}, {CacheStudyTraced, t}} {
		if !VerdictIs(a.arm.Verdict, VerdictOK) {
			st.Caveat = append(st.Caveat, fmt.Sprintf("the %s arm's verdict: %s", a.name, a.arm.Verdict))
		}
		if a.arm.CacheReset != "" && a.arm.CacheReset != "reset" && a.arm.CacheReset != cacheCold {
			st.Caveat = append(st.Caveat, fmt.Sprintf("the %s arm's prefix cache was %s", a.name, a.arm.CacheReset))
		}
	}
	if st.Capacity == nil {
		st.Caveat = append(st.Caveat, "the engine's KV capacity is unknown (its metrics do not serve vllm:cache_config_info; give --engine-kv-tokens): no LRU prediction to hold the measured hit rate to")
	}
	if st.MeasuredHitPct == nil {
		st.Caveat = append(st.Caveat, "the engine reported no cached tokens in usage and served no prefix-cache counters: the hit rate was not measured")
	}
	if u.CachedTokens > 0 && u.PromptTokens > 0 {
		st.Caveat = append(st.Caveat, fmt.Sprintf("the unique arm still hit %.1f%% of its prompt tokens (a shared chat template or system preamble the trace does not hash)", pct(u.CachedTokens, u.PromptTokens)))
	}
}

// verdict writes the first line and the lines under it.
func (st *CacheStudy) verdict() {
	var head []string
	if s := st.PrefillSaved; s != nil {
		head = append(head, fmt.Sprintf("prefix caching saved %.1f%% of prefill tokens (%s of %s, by %s)", s.Pct, countFig(s.Tokens), countFig(s.PromptTokens), s.Source))
	} else {
		head = append(head, "prefill tokens saved: not reported by the engine")
	}
	tt := st.TTFT
	conf := fmtFig(100 * tt.Confidence)
	if tt.N > 0 {
		rel := ""
		if tt.MedianA > 0 {
			rel = fmt.Sprintf(" (%s%%)", signedFig(100*tt.MedianDiff.Delta/tt.MedianA))
		}
		head = append(head, fmt.Sprintf("TTFT median %s ms [%s%% CI %s, %s]%s, p95 %s ms [%s, %s], mean %s ms with prefixes as traced vs unique (%s, n = %d)",
			signedFig(tt.MedianDiff.Delta), conf, signedFig(tt.MedianDiff.Lo), signedFig(tt.MedianDiff.Hi), rel,
			signedFig(tt.P95Diff.Delta), signedFig(tt.P95Diff.Lo), signedFig(tt.P95Diff.Hi), signedFig(st.TTFTMeanDiffMS), cacheDirection(tt.Direction), tt.N))
	} else {
		head = append(head, "TTFT: no request succeeded in both arms")
	}
	st.Verdict = strings.Join(head, "; ")
	t, u := st.Arms[CacheStudyTraced], st.Arms[CacheStudyUnique]
	st.Lines = append(st.Lines, fmt.Sprintf("throughput %s vs %s req/s, output %s vs %s tok/s (traced vs unique)",
		fmtFig(round3(t.ReqS)), fmtFig(round3(u.ReqS)), fmtFig(round3(t.OutputTokS)), fmtFig(round3(u.OutputTokS))))
	if t.GoodputPct != nil && u.GoodputPct != nil {
		st.Lines = append(st.Lines, fmt.Sprintf("goodput at %s: %.1f%% vs %.1f%% of requests, %s vs %s req/s (traced vs unique)",
			st.SLO, *t.GoodputPct, *u.GoodputPct, fmtFig(round3(*t.GoodputReqS)), fmtFig(round3(*u.GoodputReqS))))
	} else {
		st.Lines = append(st.Lines, "goodput: no --slo given")
	}
	st.Lines = append(st.Lines, st.hitLine())
}

// hitLine holds the measured hit rate against the LRU prediction and the ideal.
func (st *CacheStudy) hitLine() string {
	var b strings.Builder
	b.WriteString("hit rate measured ")
	t := st.Arms[CacheStudyTraced]
	var ms []string
	switch {
	case t.UsageHitPct != nil && t.CachedTokens > 0:
		ms = append(ms, fmt.Sprintf("%.1f%% (usage)", *t.UsageHitPct))
	case t.UsageHitPct != nil:
		ms = append(ms, "n/a (usage reported no cached tokens: none hit, or the engine does not report them)")
	}
	if t.ServerHitPct != nil {
		ms = append(ms, fmt.Sprintf("%.1f%% (/metrics)", *t.ServerHitPct))
	}
	if len(ms) == 0 {
		ms = append(ms, "n/a")
	}
	b.WriteString(strings.Join(ms, ", "))
	if c, p := st.Capacity, st.PredictedHitPct; c != nil && p != nil {
		fmt.Fprintf(&b, " vs %.1f%% predicted by LRU at the engine's %s tokens (%d trace blocks", *p, countFig(c.Tokens), c.TraceBlocks)
		if c.GiB != nil {
			fmt.Fprintf(&b, ", %s GiB", fmtFig(*c.GiB))
		}
		b.WriteString(")")
		if st.MeasuredHitPct != nil {
			fmt.Fprintf(&b, ", %s points", signedFig(round3(*st.MeasuredHitPct-*p)))
		}
	} else {
		b.WriteString("; the engine's capacity is unknown, so no LRU prediction")
	}
	fmt.Fprintf(&b, "; ideal (infinite cache) %.1f%%", st.IdealTokenHitPct)
	return b.String()
}

// cacheDirection names a paired direction with B the traced arm.
func cacheDirection(d string) string {
	switch d {
	case PairedFaster:
		return "faster with caching"
	case PairedSlower:
		return "slower with caching"
	}
	return PairedSame
}

// countFig writes a count with thousands separators.
func countFig(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
