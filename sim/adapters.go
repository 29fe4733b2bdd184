package sim

// adapters.go is the simulator's LoRA adapters, as vLLM schedules them: a batch holds the
// requests of at most Config.MaxLoras distinct adapters at once (its GPU slots); a waiting
// request whose adapter is neither loaded nor able to take a free slot is passed over while
// others behind it are admitted; loading an adapter into a slot (evicting the least recently
// used one no running request holds) costs Config.AdapterLoad, charged in the step that admits
// the request. Requests to the base model take no slot. (vLLM's v1 scheduler skips a request
// whose LoRA would exceed max_loras and goes on with the queue: vllm/v1/core/sched/scheduler.py;
// its LRU adapter cache: vllm/lora/models.py LRUCacheLoRAModelManager.)

// loraSlots is the adapters loaded into slots and when each was last used.
type loraSlots struct {
	loaded map[string]uint64 // adapter -> the step it was last admitted in
	loads  uint64            // adapters loaded so far (for /metrics and tests)
}

// admit reports whether a request of adapter a can join the batch whose running requests use
// the adapters in running, loading a when it must (and whether it did).
func (l *loraSlots) admit(a string, running map[string]int, max int, step uint64) (ok, loaded bool) {
	if a == "" {
		return true, false
	}
	if l.loaded == nil {
		l.loaded = map[string]uint64{}
	}
	if _, in := l.loaded[a]; in {
		if _, busy := running[a]; busy || len(running) < max {
			l.loaded[a] = step
			return true, false
		}
		return false, false
	}
	if len(running) >= max {
		return false, false
	}
	if len(l.loaded) >= max { // evict the least recently used adapter no running request holds
		victim, oldest := "", ^uint64(0)
		for name, at := range l.loaded {
			if _, busy := running[name]; !busy && at < oldest {
				victim, oldest = name, at
			}
		}
		if victim == "" {
			return false, false
		}
		delete(l.loaded, victim)
	}
	l.loaded[a] = step
	l.loads++
	return true, true
}

// runningAdapters counts the running sequences of each adapter.
func runningAdapters(running []*seq) map[string]int {
	out := map[string]int{}
	for _, s := range running {
		if s.adapter != "" {
			out[s.adapter]++
		}
	}
	return out
}
