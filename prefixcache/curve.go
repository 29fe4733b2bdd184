package prefixcache

import (
	"cmp"
	"fmt"
	"slices"
)

// Curve is the LRU hit-rate curve of a trace: the hits a Cache of every capacity would count,
// from one pass over the requests (Mattson et al.'s stack algorithm, 1970), in O(log n) per
// block instead of one simulation per capacity.
//
// Why it equals Cache exactly, at every capacity C:
//
//   - Cache's updates are plain LRU over one sequence of touches: each request's blocks last
//     to first, a held block moved to the front, a new one put there with the least recently
//     used evicted when full. Whatever the blocks, duplicates or a request longer than C, LRU
//     of C then holds exactly the C most recently touched distinct blocks (inclusion, by
//     induction over the touches). So "C holds h" is "h's depth in the one LRU stack of all
//     blocks is <= C", for every C at once.
//   - Cache looks a request up before touching any of its blocks, so Curve takes every
//     depth of a request first, then touches: a block repeated in a request, or a held block
//     the request's own touches evict, counts as Cache counts it.
//   - Cache counts block i a hit when blocks 0..i are all held: at capacity C when
//     max(depth 0..i) <= C. Curve adds one to the histogram at that running maximum, and
//     hits(C) is the histogram's sum up to C. Depth falls with a later last touch, so the
//     running maximum is the depth of the oldest slot so far: one tree query each time that
//     oldest slot changes, none after a block never seen (depth infinite: no hit at any C).
//   - Infinite capacity (Cache with 0) holds every block seen: every finite depth.
//
// Memory is proportional to the distinct blocks (a table of them, a time window of about
// twice their number and the histogram up to the deepest hit), never to the trace's length.
type Curve struct {
	stack  *recency
	hist   []int64 // hist[d]: blocks whose prefix's deepest block is at depth d (hist[0] unused)
	hits   int64   // hits at infinite capacity: the histogram's sum
	blocks int64
	reqs   int64
	ids    []int32 // scratch: a request's block numbers
	err    error
	// Token weights (AddPrompt): thist[d] is the prompt tokens of the blocks counted in
	// hist[d], tokens all prompt tokens added; weights is a request's, nil under Add.
	thist   []int64
	tokens  int64
	weights []int64
}

// TokenResult counts prompt tokens a cache could serve (HitTokens) of all prompt tokens, the
// share an engine's usage and metrics report.
type TokenResult struct {
	HitTokens    int64 `json:"hit_tokens"`
	PromptTokens int64 `json:"prompt_tokens"`
}

// Rate is HitTokens/PromptTokens, 0 for no tokens.
func (r TokenResult) Rate() float64 {
	if r.PromptTokens == 0 {
		return 0
	}
	return float64(r.HitTokens) / float64(r.PromptTokens)
}

// Point is one capacity's counts on a Curve (CapacityBlocks 0: infinite).
type Point struct {
	CapacityBlocks int `json:"capacity_blocks"`
	Result
}

// NewCurve makes an empty curve.
func NewCurve() *Curve { return newCurve(defaultMinWindow) }

func newCurve(minWindow int) *Curve {
	return &Curve{stack: newRecency(minWindow), hist: make([]int64, 1)}
}

// Add runs one request's block hashes through the curve, as Cache.Add does for one capacity.
// A request that would take the curve past maxDistinct distinct blocks is left out, and so is
// every request after it; Err says so.
func (c *Curve) Add(hashes []uint64) {
	c.weights = nil
	c.add(hashes)
}

// AddPrompt is Add that also weighs each block by the prompt tokens it can save, for
// TokensAt: blockSize tokens a block, but no more than promptTokens - 1 in all, since an
// engine computes at least a prompt's last token (analysis.IdealCounter weighs its hits so).
func (c *Curve) AddPrompt(hashes []uint64, blockSize, promptTokens int) {
	if c.err != nil {
		return
	}
	c.weights = c.weights[:0]
	left := int64(max(promptTokens-1, 0))
	for range hashes {
		w := min(int64(max(blockSize, 0)), left)
		left -= w
		c.weights = append(c.weights, w)
	}
	if c.thist == nil {
		c.thist = make([]int64, 1)
	}
	c.add(hashes)
	if c.err == nil {
		c.tokens += int64(max(promptTokens, 0))
	}
}

func (c *Curve) add(hashes []uint64) {
	if c.err != nil {
		return
	}
	if c.stack.blocks()+len(hashes) > maxDistinct {
		c.err = fmt.Errorf("prefixcache: curve: request %d could take it past %d distinct blocks; it and the rest are left out", c.reqs+1, maxDistinct)
		return
	}
	c.reqs++
	c.blocks += int64(len(hashes))
	c.ids = c.ids[:0]
	for _, h := range hashes {
		c.ids = append(c.ids, c.stack.lookup(h))
	}
	c.count(c.ids)
	for i := len(hashes) - 1; i >= 0; i-- {
		c.stack.touch(c.ids[i], hashes[i])
	}
}

// count adds a request's block hits to the histogram, from depths before its touches.
func (c *Curve) count(ids []int32) {
	oldest, depth := -1, 0
	for i, b := range ids {
		if b < 0 {
			return // never seen: no hit here or after, at any capacity
		}
		if s := c.stack.slot(b); oldest < 0 || s < oldest {
			oldest, depth = s, c.stack.depthAt(s)
			if depth >= len(c.hist) {
				c.hist = append(c.hist, make([]int64, depth+1-len(c.hist))...)
			}
		}
		c.hist[depth]++
		c.hits++
		if c.weights != nil {
			if depth >= len(c.thist) {
				c.thist = append(c.thist, make([]int64, depth+1-len(c.thist))...)
			}
			c.thist[depth] += c.weights[i]
		}
	}
}

// Err is nil unless Add left requests out (past maxDistinct distinct blocks).
func (c *Curve) Err() error { return c.err }

// Distinct is the number of distinct blocks seen.
func (c *Curve) Distinct() int { return c.stack.blocks() }

// At is what HitRate would count at capacityBlocks (<= 0: infinite), in O(capacityBlocks).
func (c *Curve) At(capacityBlocks int) Result {
	if capacityBlocks <= 0 || capacityBlocks >= len(c.hist) {
		return Result{Hits: c.hits, Blocks: c.blocks}
	}
	var hits int64
	for _, n := range c.hist[1 : capacityBlocks+1] {
		hits += n
	}
	return Result{Hits: hits, Blocks: c.blocks}
}

// TokensAt is At weighed in prompt tokens (AddPrompt; requests given to Add count nothing).
func (c *Curve) TokensAt(capacityBlocks int) TokenResult {
	h := c.thist
	if capacityBlocks > 0 && capacityBlocks < len(h) {
		h = h[:capacityBlocks+1]
	}
	var hits int64
	for _, n := range h {
		hits += n
	}
	return TokenResult{HitTokens: hits, PromptTokens: c.tokens}
}

// Points is At for each capacity, in the order given, from one sweep of the histogram.
func (c *Curve) Points(capacities []int) []Point {
	order := make([]int, len(capacities))
	for i := range order {
		order[i] = i
	}
	key := func(i int) int { // infinite sorts last
		if capacities[i] <= 0 {
			return int(^uint(0) >> 1)
		}
		return capacities[i]
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(key(a), key(b)) })
	out := make([]Point, len(capacities))
	d, hits := 0, int64(0)
	for _, i := range order {
		for lim := min(key(i), len(c.hist)-1); d < lim; {
			d++
			hits += c.hist[d]
		}
		out[i] = Point{CapacityBlocks: max(capacities[i], 0), Result: Result{Hits: hits, Blocks: c.blocks}}
	}
	return out
}
