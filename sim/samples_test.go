package sim

import (
	"testing"
	"time"

	"github.com/llm-replay/replay/gen"
)

// loadGen turns a generated workload (package gen) into arrivals at the given speed: each
// 512-token block of hash h becomes the ids h*512..h*512+511, so equal hashes are equal token
// blocks, and the tail past the last block is the request's own.
func loadGen(t *testing.T, cfg gen.Config, speed float64) []arrival {
	recs, err := gen.Records(cfg)
	if err != nil {
		t.Fatal(err)
	}
	work := make([]arrival, 0, len(recs))
	for i, r := range recs {
		p := make([]int, 0, r.PromptTokens)
		for _, h := range r.BlockHashes {
			for j := 0; j < r.BlockSize && len(p) < r.PromptTokens; j++ {
				p = append(p, int(h)*r.BlockSize+j)
			}
		}
		for len(p) < r.PromptTokens {
			p = append(p, 1<<40+i<<20+len(p))
		}
		work = append(work, arrival{at: time.Duration(float64(r.Timestamp) / speed), prompt: p, maxTokens: max(1, r.OutputTokens)})
	}
	return work
}

// TestSampleTraces runs generated workloads through the default cost model in virtual time and
// checks that the defaults queue the default workload (what the README's first command replays)
// at 4x without letting it run away.
func TestSampleTraces(t *testing.T) {
	fast := DefaultConfig()
	fast.PrefillPerToken = 10 * time.Microsecond
	agent := gen.Default()
	agent.Shape = "agent"
	for _, tc := range []struct {
		name  string
		speed float64
		work  []arrival
		cfg   Config
	}{
		{"default workload", 4, loadGen(t, gen.Default(), 4), DefaultConfig()},
		{"agent", 2, loadGen(t, agent, 2), DefaultConfig()},
		{"agent --prefill-per-token 10us", 2, loadGen(t, agent, 2), fast},
	} {
		ev, cached := runVirtual(t, tc.cfg, tc.work)
		var sum, worst time.Duration
		for _, e := range ev {
			if e.tokens == 1 {
				ttft := e.at - tc.work[e.seq].at
				sum += ttft
				worst = max(worst, ttft)
			}
		}
		hits, total := 0, 0
		for i, c := range cached {
			hits += c
			total += len(tc.work[i].prompt)
		}
		span, last := tc.work[len(tc.work)-1].at, ev[len(ev)-1].at
		mean := sum / time.Duration(len(tc.work))
		t.Logf("%s at %gx: %d requests, arrivals span %.1fs, last token %.1fs, mean TTFT %.2fs, max TTFT %.1fs, cached %d of %d prompt tokens",
			tc.name, tc.speed, len(tc.work), span.Seconds(), last.Seconds(), mean.Seconds(), worst.Seconds(), hits, total)
		if tc.name == "default workload" && (mean < 100*time.Millisecond || last > span+30*time.Second) {
			t.Errorf("defaults on the Azure sample at 4x: mean TTFT %v, drained %v after the last arrival; want visible queueing (>100ms) that drains within 30s",
				mean, last-span)
		}
	}
}

// TestSamplePrefixHitsMatchIdeal serves the generated agent workload one request at a time with an
// unbounded cache: the simulator's cached tokens must then equal what an ideal prefix cache
// over the trace's 512-token block hashes finds, up to the partial last block and the prompt's
// last token, which is always computed.
func TestSamplePrefixHitsMatchIdeal(t *testing.T) {
	agent := gen.Default()
	agent.Shape = "agent"
	work := loadGen(t, agent, 2)
	cfg := DefaultConfig()
	cfg.NumBlocks = 1 << 22
	cfg.MaxBatch = 1
	_, cached := runVirtual(t, cfg, work)
	seen := map[int]bool{}
	ideal, got := 0, 0
	for i, w := range work {
		want := 0
		for b := 0; b+512 <= len(w.prompt) && seen[w.prompt[b]]; b += 512 {
			want += 512
		}
		for b := 0; b < len(w.prompt); b += 512 {
			seen[w.prompt[b]] = true
		}
		// The simulator's 16-token blocks can also hit inside a partial 512-token block.
		if cached[i] < min(want, len(w.prompt)-1)/16*16 || cached[i] > len(w.prompt)-1 {
			t.Errorf("request %d: cached %d, ideal %d of %d", i, cached[i], want, len(w.prompt))
		}
		ideal += want
		got += cached[i]
	}
	t.Logf("cached %d tokens, ideal prefix cache %d", got, ideal)
	if ideal == 0 {
		t.Fatal("the workload has no shared prefixes: the test proves nothing")
	}
}
