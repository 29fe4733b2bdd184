package sim

import (
	"cmp"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// arrival is one request of a virtual-time workload.
type arrival struct {
	at        time.Duration
	prompt    []int
	maxTokens int
}

// tokenTime is one generated token in virtual time.
type tokenTime struct {
	seq    uint64
	tokens int
	at     time.Duration
}

// runVirtual drives a core through a workload entirely in virtual time and returns every token
// event plus the cached tokens per request.
func runVirtual(t *testing.T, cfg Config, work []arrival) ([]tokenTime, []int) {
	t.Helper()
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	if cfg.Counter == nil {
		cfg.Counter = ApproxCounter{}
	}
	var events []tokenTime
	c := newCore(&cfg, func(s *seq, tokens int, at time.Duration) {
		events = append(events, tokenTime{s.id, tokens, at})
	})
	seqs := make([]*seq, len(work))
	next := 0
	for next < len(work) || !c.idle() {
		for next < len(work) && (work[next].at <= c.now || c.idle()) {
			c.now = max(c.now, work[next].at)
			req := Request{HasIDs: true, PromptIDs: work[next].prompt, MaxTokens: work[next].maxTokens}
			p, err := buildPrompt(&cfg, &req)
			if err != nil {
				t.Fatal(err)
			}
			s := &seq{id: uint64(next), prompt: p, maxTokens: work[next].maxTokens}
			if !c.add(s) {
				t.Fatalf("request %d refused", next)
			}
			seqs[next] = s
			next++
		}
		p := c.plan()
		if len(p.prefill) == 0 && len(p.decode) == 0 {
			t.Fatalf("stuck at %v with %d waiting", c.now, len(c.waiting))
		}
		c.apply(p)
	}
	cached := make([]int, len(seqs))
	for i, s := range seqs {
		cached[i] = s.cached
		if s.generated != s.maxTokens || s.state != seqFinished {
			t.Fatalf("request %d: generated %d of %d, state %v", i, s.generated, s.maxTokens, s.state)
		}
	}
	if c.kv.pinned != 0 {
		t.Fatalf("%d blocks still pinned after the run", c.kv.pinned)
	}
	return events, cached
}

// workload is a seeded mix of requests sharing a few system prompts, arriving faster than the
// default engine serves them.
func workload(seed uint64, n int) []arrival {
	r := rand.New(rand.NewPCG(seed, 7))
	var w []arrival
	at := time.Duration(0)
	for i := range n {
		at += time.Duration(r.ExpFloat64() * float64(20*time.Millisecond))
		shared := ids(10000*(1+r.IntN(3)), 64+r.IntN(512))
		w = append(w, arrival{at: at, prompt: append(shared, ids(1000000+i*10000, 1+r.IntN(300))...), maxTokens: 1 + r.IntN(200)})
	}
	return w
}

func TestDeterministicSchedule(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Jitter = 0.1
	cfg.NumBlocks = 2048 // small enough to evict
	work := workload(3, 300)
	a, cachedA := runVirtual(t, cfg, work)
	b, cachedB := runVirtual(t, cfg, work)
	if !slices.Equal(a, b) || !slices.Equal(cachedA, cachedB) {
		t.Fatal("same seed and workload gave different schedules")
	}
	cfg.Seed = 2
	c, _ := runVirtual(t, cfg, work)
	if slices.Equal(a, c) {
		t.Fatal("a different seed gave the same schedule: jitter is not drawn from the seed")
	}
	hits := 0
	for _, x := range cachedA {
		hits += x
	}
	if hits == 0 {
		t.Error("no prefix-cache hits in a workload of shared system prompts")
	}
	t.Logf("%d token events, last at %v, %d cached tokens", len(a), a[len(a)-1].at, hits)
}

// TestStepCosts checks the cost model's arithmetic on a hand-computed schedule.
func TestStepCosts(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Jitter = 0
	cfg.StepBase = 10 * time.Millisecond
	cfg.StepPerSeq = time.Millisecond
	cfg.StepPerKVToken = time.Microsecond
	cfg.PrefillPerToken = 100 * time.Microsecond
	cfg.TokenBudget = 256
	// One request: 600-token prompt, 3 output tokens.
	ev, _ := runVirtual(t, cfg, []arrival{{prompt: ids(0, 600), maxTokens: 3}})
	// Prefill in chunks 256, 256, 88 (kv = tokens computed before the step):
	// step1 10ms + 0 kv + 25.6ms; step2 10 + 0.256 + 25.6; step3 10 + 0.512 + 8.8 -> first token.
	first := 10*time.Millisecond + 25600*time.Microsecond +
		10*time.Millisecond + 256*time.Microsecond + 25600*time.Microsecond +
		10*time.Millisecond + 512*time.Microsecond + 8800*time.Microsecond
	// Decode steps: 10ms + 1 seq + kv (600+1, then 600+2) us.
	second := first + 10*time.Millisecond + time.Millisecond + 601*time.Microsecond
	third := second + 10*time.Millisecond + time.Millisecond + 602*time.Microsecond
	want := []tokenTime{{0, 1, first}, {0, 2, second}, {0, 3, third}}
	if !slices.Equal(ev, want) {
		t.Errorf("schedule\n got %v\nwant %v", ev, want)
	}
}

func TestBatchLimitAndBudget(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Jitter = 0
	cfg.MaxBatch = 2
	var work []arrival
	for i := range 3 {
		work = append(work, arrival{prompt: ids(i*1000, 20), maxTokens: 5})
	}
	ev, _ := runVirtual(t, cfg, work)
	firstAt := map[uint64]time.Duration{}
	lastAt := map[uint64]time.Duration{}
	for _, e := range ev {
		if e.tokens == 1 {
			firstAt[e.seq] = e.at
		}
		lastAt[e.seq] = e.at
	}
	// Requests 0 and 1 run together; request 2 starts only after one of them finishes.
	if firstAt[0] != firstAt[1] {
		t.Errorf("first two requests' first tokens at %v and %v, want the same step", firstAt[0], firstAt[1])
	}
	if firstAt[2] <= lastAt[0] {
		t.Errorf("third request's first token at %v, before the batch had room (%v)", firstAt[2], lastAt[0])
	}
}

func TestKVCacheLRU(t *testing.T) {
	kv := newKVCache(4)
	a := []*block{kv.alloc(), kv.alloc()}
	kv.register(a[0], 1)
	kv.register(a[1], 2)
	if kv.pinned != 2 || !kv.canAllocate(0, 2) || kv.canAllocate(0, 3) {
		t.Fatalf("pinned %d", kv.pinned)
	}
	kv.release(a)
	if kv.pinned != 0 || kv.lru.Len() != 2 {
		t.Fatalf("after release: pinned %d lru %d", kv.pinned, kv.lru.Len())
	}
	if hit, inLRU := kv.lookup([]uint64{1, 2, 3}); hit != 2 || inLRU != 2 {
		t.Fatalf("lookup: hit %d inLRU %d", hit, inLRU)
	}
	// Filling the cache evicts the tail block (hash 2) first, keeping the shared head.
	b := []*block{kv.alloc(), kv.alloc(), kv.alloc()}
	if hit, _ := kv.lookup([]uint64{1, 2}); hit != 1 {
		t.Fatalf("after one eviction: hit %d, want 1 (tail evicted first)", hit)
	}
	pinnedHead := kv.pin([]uint64{1})
	if kv.pinned != 4 || kv.canAllocate(0, 1) {
		t.Fatalf("full cache: pinned %d", kv.pinned)
	}
	kv.release(append(b, pinnedHead...))
	if kv.usage() != 0 {
		t.Errorf("usage %v after releasing everything", kv.usage())
	}
	// A duplicate registration keeps the first block as the cached one.
	d := kv.alloc()
	kv.register(d, 1)
	if d.hashed {
		t.Error("duplicate prefix registered twice")
	}
}

// TestPriorityQueue: waiting requests are admitted lowest priority value first, arrival order
// among equals (vLLM's priority scheduling), so under a full batch a priority-0 request that
// arrived last starts first.
func TestPriorityQueue(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxBatch = 1
	cfg.Counter = ApproxCounter{}
	c, first, queue := firstTokens(t, &cfg)
	add := func(id uint64, priority int) { queue(seq{id: id, priority: priority}) }
	add(0, 5) // runs at once: the batch holds one
	c.apply(c.plan())
	for id, pr := range []int{5, 9, 0, 5, 0} { // ids 1..5 wait
		add(uint64(id+1), pr)
	}
	for !c.idle() {
		c.apply(c.plan())
	}
	order := slices.SortedFunc(maps.Keys(first), func(a, b uint64) int { return cmp.Compare(first[a], first[b]) })
	if want := []uint64{0, 3, 5, 1, 4, 2}; !slices.Equal(order, want) {
		t.Errorf("first tokens in order %v, want %v (priority 0s first, then 5s, then 9; arrival order within)", order, want)
	}
}
