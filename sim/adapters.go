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

// fits reports whether a request of adapter a can join the batch whose running requests use
// the adapters in running: the base model always; an adapter loaded and running, or with a slot
// free for it, or one to take from a loaded adapter no running request holds.
func (l *loraSlots) fits(a string, running map[string]int, max int) bool {
	if a == "" {
		return true
	}
	if _, busy := running[a]; busy {
		return true
	}
	return len(running) < max
}

// take puts adapter a in a slot for a request joining the batch (fits said it can), loading
// it, the least recently used adapter no running request holds evicted when the slots are
// full; it reports whether a was loaded.
func (l *loraSlots) take(a string, running map[string]int, max int, step uint64) bool {
	if a == "" {
		return false
	}
	running[a]++
	if l.loaded == nil {
		l.loaded = map[string]uint64{}
	}
	if _, in := l.loaded[a]; in {
		l.loaded[a] = step
		return false
	}
	if len(l.loaded) >= max { // evict the least recently used adapter no running request holds
		victim, oldest := "", ^uint64(0)
		for name, at := range l.loaded {
			if _, busy := running[name]; !busy && at < oldest {
				victim, oldest = name, at
			}
		}
		if victim != "" {
			delete(l.loaded, victim)
		}
	}
	l.loaded[a] = step
	l.loads++
	return true
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
