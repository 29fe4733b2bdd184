package scrape

import "math"

// sentinel reports whether a value stands for "no value" rather than a reading, so it is
// dropped (and counted) instead of kept. Every engine's series here are counts, fractions,
// rates or sizes, none below zero; vLLM's later v0 engine serves its prefix-cache hit rate
// vllm:gpu_prefix_cache_hit_rate as -1 with prefix caching off (as published pages show; the
// vllm/engine/metrics.py read here, vllm-project/vllm f0afa0c28a3160de7a2ece6eeda2afc8abba8b39,
// predates that gauge), SGLang's utilization -1 in PD-prefill mode.
func sentinel(names Names, s Series, v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return true
	}
	return names.Blank != nil && names.Blank(s, v)
}

// DCGM's blank values (dcgm_structs.h, as the DCGM exporter passes them on where a field is
// not supported, not found or not permitted): DCGM_FP64_BLANK is 2^47 and the int64 blanks
// start at 0x7ffffffffffffff0 (9223372036854775792, "not supported" is +2), both far above
// any reading; the int32 blanks are 0x7ffffff0 to 0x7fffffff. An energy counter in mJ can
// pass 2^31 honestly (600 Wh), so the int32 range is a blank only for the gauges.
const (
	dcgmFP64Blank  = 140737488355328.0
	dcgmInt32Blank = 0x7ffffff0
	dcgmInt32Max   = 0x7fffffff
)

// dcgmBlank is the DCGM table's Blank.
func dcgmBlank(s Series, v float64) bool {
	if v >= dcgmFP64Blank {
		return true
	}
	return s.Kind != Counter && v >= dcgmInt32Blank && v <= dcgmInt32Max
}
