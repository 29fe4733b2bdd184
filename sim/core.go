package sim

import (
	"math/rand/v2"
	"time"
)

// seqState is where a sequence is in its life.
type seqState int

const (
	seqWaiting seqState = iota
	seqRunning
	seqFinished
	seqCanceled
)

// seq is one request inside the engine.
type seq struct {
	id        uint64
	prompt    prompt
	maxTokens int
	arrival   time.Duration

	state     seqState
	cached    int // prompt tokens served from the prefix cache
	prefilled int // prompt tokens computed or cached so far
	generated int
	blocks    []*block
	// registered counts the leading prompt blocks already made findable in the cache.
	registered int

	// out receives token progress; nil in tests that drive the core directly.
	out *stream
}

// stepPlan is what one engine step will do.
type stepPlan struct {
	dur     time.Duration
	prefill []prefillChunk
	decode  []*seq
}

type prefillChunk struct {
	s *seq
	n int
}

// tokenEvent reports that s has generated tokens in total at virtual time at.
type tokenEvent func(s *seq, tokens int, at time.Duration)

// core is the cost model: continuous batching with chunked prefill on a virtual clock. It has no
// locks and no goroutines; engine drives it in real time, tests drive it in virtual time.
type core struct {
	cfg     *Config
	now     time.Duration
	waiting []*seq
	running []*seq
	kv      *kvCache
	rng     *rand.Rand
	onToken tokenEvent

	// counters for /metrics
	promptTokens, generationTokens, success uint64
	cacheQueries, cacheHits                 uint64
}

func newCore(cfg *Config, onToken tokenEvent) *core {
	seed := uint64(cfg.Seed)
	return &core{
		cfg:     cfg,
		kv:      newKVCache(cfg.NumBlocks),
		rng:     rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		onToken: onToken,
	}
}

// blocksFor is the number of KV blocks a sequence reserves: prompt plus all its output, so
// that no running sequence is ever preempted (a simplification of vLLM, which allocates as it
// goes and preempts under pressure).
func (c *core) blocksFor(s *seq) int {
	bs := c.cfg.BlockSize
	return (s.prompt.tokens + s.maxTokens + bs - 1) / bs
}

// fits reports whether a sequence could ever be scheduled.
func (c *core) fits(s *seq) bool { return c.blocksFor(s) <= c.cfg.NumBlocks }

// add queues s at the current virtual time; false when the waiting queue is full.
func (c *core) add(s *seq) bool {
	if len(c.waiting) >= c.cfg.MaxWaiting {
		return false
	}
	s.arrival = c.now
	s.state = seqWaiting
	c.waiting = append(c.waiting, s)
	return true
}

// idle reports whether there is nothing to do.
func (c *core) idle() bool { return len(c.waiting) == 0 && len(c.running) == 0 }

// cancel removes s wherever it is and frees its blocks.
func (c *core) cancel(s *seq) {
	switch s.state {
	case seqWaiting:
		c.waiting = removeSeq(c.waiting, s)
	case seqRunning:
		c.running = removeSeq(c.running, s)
		c.kv.release(s.blocks)
		s.blocks = nil
	default:
		return
	}
	s.state = seqCanceled
}

func removeSeq(list []*seq, s *seq) []*seq {
	for i, x := range list {
		if x == s {
			copy(list[i:], list[i+1:])
			list[len(list)-1] = nil
			return list[:len(list)-1]
		}
	}
	return list
}

// plan decides the next step: running sequences first (one token each for decoding ones,
// a chunk of the budget for prefilling ones), then waiting ones admitted first come first
// served while batch slots, token budget and KV blocks allow. Admission happens here because it
// is part of the step's scheduling decision.
func (c *core) plan() stepPlan {
	var p stepPlan
	budget := c.cfg.TokenBudget
	for _, s := range c.running {
		if budget == 0 {
			break
		}
		if left := s.prompt.tokens - s.prefilled; left > 0 {
			n := min(left, budget)
			p.prefill = append(p.prefill, prefillChunk{s, n})
			budget -= n
			continue
		}
		p.decode = append(p.decode, s)
		budget--
	}
	for len(c.waiting) > 0 && budget > 0 && len(c.running) < c.cfg.MaxBatch {
		s := c.waiting[0]
		hit, inLRU := c.kv.lookup(s.prompt.hashes)
		fresh := c.blocksFor(s) - hit
		if !c.kv.canAllocate(inLRU, fresh) {
			break // first come first served: the head waits for blocks
		}
		c.waiting = c.waiting[1:]
		s.blocks = c.kv.pin(s.prompt.hashes[:hit])
		s.registered = hit
		for range fresh {
			s.blocks = append(s.blocks, c.kv.alloc())
		}
		s.cached = hit * c.cfg.BlockSize
		s.prefilled = s.cached
		s.state = seqRunning
		c.running = append(c.running, s)
		c.cacheQueries += uint64(s.prompt.tokens)
		c.cacheHits += uint64(s.cached)
		c.promptTokens += uint64(s.prompt.tokens)
		n := min(s.prompt.tokens-s.prefilled, budget)
		p.prefill = append(p.prefill, prefillChunk{s, n})
		budget -= n
	}
	if len(p.prefill) == 0 && len(p.decode) == 0 {
		return p
	}
	var kvTokens int
	for _, s := range c.running {
		kvTokens += s.prefilled + s.generated
	}
	prefillTokens := 0
	for _, ch := range p.prefill {
		prefillTokens += ch.n
	}
	d := c.cfg.StepBase +
		time.Duration(len(p.decode))*c.cfg.StepPerSeq +
		time.Duration(kvTokens)*c.cfg.StepPerKVToken +
		time.Duration(prefillTokens)*c.cfg.PrefillPerToken
	if c.cfg.Jitter > 0 {
		d = time.Duration(float64(d) * (1 + c.cfg.Jitter*(2*c.rng.Float64()-1)))
	}
	p.dur = max(d, 1)
	return p
}

// apply advances the clock by the step and delivers its tokens: a sequence whose prefill
// completes gets its first token at the end of that step, a decoding one gets one more.
func (c *core) apply(p stepPlan) {
	c.now += p.dur
	for _, ch := range p.prefill {
		s := ch.s
		if s.state != seqRunning {
			continue // canceled during the step
		}
		s.prefilled += ch.n
		c.registerComputed(s)
		if s.prefilled == s.prompt.tokens {
			c.emit(s)
		}
	}
	for _, s := range p.decode {
		if s.state == seqRunning {
			c.emit(s)
		}
	}
}

// registerComputed makes the prompt blocks computed so far findable by later requests.
func (c *core) registerComputed(s *seq) {
	full := min(s.prefilled/c.cfg.BlockSize, len(s.prompt.hashes))
	for ; s.registered < full; s.registered++ {
		c.kv.register(s.blocks[s.registered], s.prompt.hashes[s.registered])
	}
}

// emit gives s one token and finishes it at max_tokens.
func (c *core) emit(s *seq) {
	s.generated++
	c.generationTokens++
	if s.generated >= s.maxTokens {
		s.state = seqFinished
		c.running = removeSeq(c.running, s)
		c.kv.release(s.blocks)
		s.blocks = nil
		c.success++
	}
	if c.onToken != nil {
		c.onToken(s, s.generated, c.now)
	}
}
