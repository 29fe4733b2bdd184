package sim

import (
	"math/rand/v2"
	"slices"
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

// seq is one request inside the engine. A request with n > 1 is one seq of width n: its choices
// fork from one prompt (prefilled once, its full blocks shared by all, as a prefix cache shares
// them) and then decode in lockstep, each choice a decode slot (MaxBatch), a token of the
// step's budget and its own KV blocks, so n choices cost n times one choice's decode work.
// Lockstep, not n free sequences, because they are admitted together and their lengths are
// equal (max_tokens), so free sequences would move together anyway.
type seq struct {
	id        uint64
	prompt    prompt
	maxTokens int // tokens of each choice; 0 for a prefill-only sequence (an embedding)
	arrival   time.Duration
	// n is the number of choices; 0 means 1, so that a bare seq is a plain request.
	n int
	// adapter is the LoRA adapter it runs with ("" for the base model): adapters.go.
	adapter string
	// priority orders the waiting queue: lower first, arrival order among equals (vLLM's
	// priority scheduling).
	priority int
	// tokenCost is the decode work of one token in decodeUnits: a constrained (structured)
	// sequence's is Config.StructuredDecodeFactor units; 0 means one.
	tokenCost int
	// credit is the decode work done toward the next token, in decodeUnits.
	credit int

	state     seqState
	cached    int // prompt tokens served from the prefix cache
	prefilled int // prompt tokens computed or cached so far
	generated int
	blocks    []*block
	// registered counts the leading prompt blocks already made findable in the cache.
	registered int
	// admitted is the engine-clock time the sequence joined the running batch (queuetime.go).
	admitted time.Duration

	// out receives token progress; nil in tests that drive the core directly.
	out *stream
}

// width is the number of choices: decode slots, budget tokens per step, tokens per emit.
func (s *seq) width() int { return max(s.n, 1) }

// kvTokens is the context the step's attention reads for s: the prompt being prefilled, then
// each choice's whole context.
func (s *seq) kvTokens() int {
	if s.generated == 0 {
		return s.prefilled
	}
	return s.width() * (s.prefilled + s.generated)
}

// decodeUnit is one step of decoding work, the fixed-point unit of seq.tokenCost (a
// thousandth of a step is fine enough for any factor).
const decodeUnit = 1000

// stepPlan is what one engine step will do.
type stepPlan struct {
	dur     time.Duration
	prefill []prefillChunk
	decode  []*seq
	// adapterLoads are the LoRA adapters loaded into slots for this step's admissions.
	adapterLoads int
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
	slots   int // decode slots held by running sequences: the sum of their widths
	kv      *kvCache
	loras   loraSlots
	rng     *rand.Rand
	onToken tokenEvent

	// counters for /metrics
	promptTokens, generationTokens, success uint64
	cacheQueries, cacheHits                 uint64
	// steps counts the steps applied, so that tests read the cost model over HTTP in steps
	// rather than in wall-clock time.
	steps uint64
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
// goes and preempts under pressure). The prompt's full blocks are shared by the choices; each
// choice has its own copy of the partial last one and its own output blocks.
func (c *core) blocksFor(s *seq) int {
	bs := c.cfg.BlockSize
	shared := s.prompt.tokens / bs
	own := (s.prompt.tokens - shared*bs + s.maxTokens + bs - 1) / bs
	return shared + s.width()*own
}

// fits reports whether a sequence's KV blocks could ever be allocated.
func (c *core) fits(s *seq) bool { return c.blocksFor(s) <= c.cfg.NumBlocks }

// tooWide reports whether a sequence has more choices than one step can decode (batch slots
// or token budget), so that it could never run.
func (c *core) tooWide(s *seq) bool {
	return s.width() > c.cfg.MaxBatch || s.width() > c.cfg.TokenBudget
}

// add queues s at the current virtual time; false when the waiting queue is full.
func (c *core) add(s *seq) bool {
	if len(c.waiting) >= c.cfg.MaxWaiting {
		return false
	}
	s.arrival = c.now
	s.state = seqWaiting
	i := len(c.waiting) // behind every request of its priority or a lower value
	for i > 0 && c.waiting[i-1].priority > s.priority {
		i--
	}
	c.waiting = slices.Insert(c.waiting, i, s)
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
		c.slots -= s.width()
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

// plan decides the next step: running sequences first (one token per choice for decoding ones,
// a chunk of the budget for prefilling ones), then waiting ones admitted first come first
// served while batch slots, token budget and KV blocks allow. Admission happens here because it
// is part of the step's scheduling decision.
func (c *core) plan() stepPlan {
	var p stepPlan
	budget := c.cfg.TokenBudget
	decoding := 0 // choices decoding this step
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
		if budget < s.width() {
			continue // its choices decode together or not at all
		}
		p.decode = append(p.decode, s)
		budget -= s.width()
		decoding += s.width()
	}
	c.admit(&p, budget)
	if len(p.prefill) == 0 && len(p.decode) == 0 {
		return p
	}
	var kvTokens int
	for _, s := range c.running {
		kvTokens += s.kvTokens()
	}
	prefillTokens, encoded := 0, 0
	for _, ch := range p.prefill {
		prefillTokens += ch.n
		if ch.s.prefilled == ch.s.cached { // its first computed chunk: the encoder runs on the media
			encoded += min(ch.s.prompt.media, ch.s.prompt.tokens-ch.s.cached) // a cached prefix's images are not encoded again
		}
	}
	d := c.cfg.StepBase +
		time.Duration(decoding)*c.cfg.StepPerSeq +
		time.Duration(kvTokens)*c.cfg.StepPerKVToken +
		time.Duration(prefillTokens)*c.cfg.PrefillPerToken +
		time.Duration(encoded)*c.cfg.EncodePerMediaToken +
		time.Duration(p.adapterLoads)*c.cfg.AdapterLoad
	if c.cfg.Jitter > 0 {
		d = time.Duration(float64(d) * (1 + c.cfg.Jitter*(2*c.rng.Float64()-1)))
	}
	p.dur = max(d, 1)
	return p
}

// admit moves waiting sequences into the running batch, first come first served (by
// priority) while batch slots, the token budget and KV blocks allow, passing over one whose
// LoRA adapter finds no slot (adapters.go); each starts its prefill in p, within budget.
func (c *core) admit(p *stepPlan, budget int) {
	var adapters map[string]int // the running batch's adapters, counted when one is served
	if c.cfg.servesAdapters {
		adapters = runningAdapters(c.running)
	}
	for i := 0; i < len(c.waiting) && budget > 0 && c.slots+c.waiting[i].width() <= c.cfg.MaxBatch; {
		s := c.waiting[i]
		if !c.loras.fits(s.adapter, adapters, c.cfg.MaxLoras) {
			i++ // its adapter has no slot: passed over while the requests behind it go on
			continue
		}
		hit, inLRU := c.kv.lookup(s.prompt.hashes)
		fresh := c.blocksFor(s) - hit
		if !c.kv.canAllocate(inLRU, fresh) {
			break // first come first served: the head waits for blocks
		}
		if c.loras.take(s.adapter, adapters, c.cfg.MaxLoras, c.steps) {
			p.adapterLoads++
		}
		c.waiting = slices.Delete(c.waiting, i, i+1)
		c.start(s, hit, fresh)
		n := min(s.prompt.tokens-s.prefilled, budget)
		p.prefill = append(p.prefill, prefillChunk{s, n})
		budget -= n
	}
}

// start puts s in the running batch: its cached prefix's hit blocks pinned and fresh ones
// allocated, its cache figures counted.
func (c *core) start(s *seq, hit, fresh int) {
	s.blocks = c.kv.pin(s.prompt.hashes[:hit])
	s.registered = hit
	for range fresh {
		s.blocks = append(s.blocks, c.kv.alloc())
	}
	s.cached = hit * c.cfg.BlockSize
	s.prefilled = s.cached
	s.state = seqRunning
	s.admitted = c.now
	c.running = append(c.running, s)
	c.slots += s.width()
	c.cacheQueries += uint64(s.prompt.tokens)
	c.cacheHits += uint64(s.cached)
	c.promptTokens += uint64(s.prompt.tokens)
}

// apply advances the clock by the step and delivers its tokens: a sequence whose prefill
// completes gets its first token at the end of that step, a decoding one gets one more when
// the step completes its token's work (every step unless it is structured).
func (c *core) apply(p stepPlan) {
	c.now += p.dur
	c.steps++
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
		if s.state == seqRunning && s.decodeStep() {
			c.emit(s)
		}
	}
}

// decodeStep credits s with one step of decoding and reports whether that completes a token. A
// structured sequence holds its slot every step but finishes a token only every
// tokenCost/decodeUnit steps on average: the slowdown is charged to the constrained sequences
// alone, not to the batch. (A real engine computes the grammar masks of a step for the whole
// batch, and a slow grammar backend can hold every sequence up; charging it to its own
// sequences keeps the other requests' timings as they were, so the two populations separate.)
// The first token, at the end of prefill, is not slowed: schema compilation is not modelled.
func (s *seq) decodeStep() bool {
	if s.tokenCost <= decodeUnit {
		return true
	}
	s.credit += decodeUnit
	if s.credit < s.tokenCost {
		return false
	}
	s.credit -= s.tokenCost
	return true
}

// registerComputed makes the prompt blocks computed so far findable by later requests.
func (c *core) registerComputed(s *seq) {
	full := min(s.prefilled/c.cfg.BlockSize, len(s.prompt.hashes))
	for ; s.registered < full; s.registered++ {
		c.kv.register(s.blocks[s.registered], s.prompt.hashes[s.registered])
	}
}

// emit gives each choice of s one token and finishes s at max_tokens. A prefill-only sequence
// (maxTokens 0) generates nothing: it finishes when its prefill does, reported with 0 tokens.
func (c *core) emit(s *seq) {
	if s.maxTokens > 0 {
		s.generated++
		c.generationTokens += uint64(s.width()) // vLLM counts every choice's tokens
	}
	if s.generated >= s.maxTokens {
		s.state = seqFinished
		c.running = removeSeq(c.running, s)
		c.slots -= s.width()
		c.kv.release(s.blocks)
		s.blocks = nil
		c.success++
	}
	if c.onToken != nil {
		c.onToken(s, s.generated, c.now)
	}
}
