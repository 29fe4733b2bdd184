package sim

import (
	"testing"
	"time"
)

// TestAdapterSlots: with one adapter slot, a request of a second adapter is passed over
// while the first adapter's requests (queued before and after it) run, and admitted when its
// slot frees; each load costs AdapterLoad once, a loaded adapter's next request nothing, and
// the base model takes no slot.
func TestAdapterSlots(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxLoras, cfg.AdapterLoad = 1, 50*time.Millisecond
	cfg.Counter = ApproxCounter{}
	cfg.servesAdapters = true
	c, first, queue := firstTokens(t, &cfg)
	add := func(id uint64, adapter string) { queue(seq{id: id, adapter: adapter}) }
	add(0, "a")
	add(1, "b")
	add(2, "a")
	add(3, "")
	p := c.plan()
	admitted := map[uint64]bool{}
	for _, ch := range p.prefill {
		admitted[ch.s.id] = true
	}
	if !admitted[0] || admitted[1] || !admitted[2] || !admitted[3] || p.adapterLoads != 1 {
		t.Fatalf("first step admitted %v with %d loads: want 0, 2 (adapter a, loaded once) and 3 (the base), 1 (b) passed over", admitted, p.adapterLoads)
	}
	if p.dur < cfg.AdapterLoad {
		t.Errorf("the step that loads a took %v, want at least AdapterLoad %v", p.dur, cfg.AdapterLoad)
	}
	c.apply(p)
	for !c.idle() {
		c.apply(c.plan())
	}
	if !(first[1] > first[0] && first[1] > first[2]) || c.loras.loads != 2 {
		t.Errorf("first tokens %v, loads %d: want b after both of a's, 2 loads (a, then b evicting it)", first, c.loras.loads)
	}
	// A request of the adapter still loaded (b) costs no load.
	add(4, "b")
	for !c.idle() {
		c.apply(c.plan())
	}
	if c.loras.loads != 2 {
		t.Errorf("a request of the loaded adapter b loaded again: %d loads", c.loras.loads)
	}
}

// TestAdapterOwnsItsCache: the same prompt under an adapter and under the base model (or
// another adapter) shares no cache block, as vLLM keys blocks by the LoRA; under one adapter
// it shares them all.
func TestAdapterOwnsItsCache(t *testing.T) {
	base := DefaultConfig()
	base.Counter = ApproxCounter{}
	ids := make([]int, 200)
	for i := range ids {
		ids[i] = i + 1
	}
	hashes := func(adapter string) []uint64 {
		cfg := base
		cfg.adapter, cfg.ModelName = adapter != "", adapter
		p, err := buildPrompt(&cfg, &Request{HasIDs: true, PromptIDs: ids, MaxTokens: 1})
		if err != nil || len(p.hashes) == 0 {
			t.Fatalf("%v, %d blocks", err, len(p.hashes))
		}
		return p.hashes
	}
	b, sql, sql2, code := hashes(""), hashes("sql-lora"), hashes("sql-lora"), hashes("code-lora")
	for i := range b {
		if b[i] == sql[i] || sql[i] == code[i] || sql[i] != sql2[i] {
			t.Fatalf("block %d: base %x, sql %x/%x, code %x", i, b[i], sql[i], sql2[i], code[i])
		}
	}
}

// firstTokens is a core over cfg (validated) recording each sequence's first token time in
// first, and queue, which adds s (its id, adapter or priority set) with a 4-token prompt of
// its own and 4 tokens to write, failing the test if the core refuses it.
func firstTokens(t *testing.T, cfg *Config) (c *core, first map[uint64]time.Duration, queue func(s seq)) {
	t.Helper()
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	first = map[uint64]time.Duration{}
	c = newCore(cfg, func(s *seq, _ int, at time.Duration) {
		if _, ok := first[s.id]; !ok {
			first[s.id] = at
		}
	})
	queue = func(s seq) {
		req := Request{HasIDs: true, PromptIDs: []int{int(s.id) + 1, 2, 3, 4}, MaxTokens: 4}
		p, err := buildPrompt(cfg, &req)
		if err != nil {
			t.Fatal(err)
		}
		s.prompt, s.maxTokens = p, 4
		if !c.add(&s) {
			t.Fatal("refused")
		}
	}
	return c, first, queue
}
