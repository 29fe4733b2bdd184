package sim

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"
)

// loadMooncake reads the Mooncake sample as a 2x workload: each 512-token block of hash h
// becomes the ids h*512..h*512+511, so equal hashes are equal token blocks.
func loadMooncake(t *testing.T, speed float64) []arrival {
	f, err := os.Open("../samples/mooncake_2min.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var work []arrival
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for line := 1; sc.Scan(); line++ {
		var r struct {
			Timestamp float64 `json:"timestamp"`
			In        int     `json:"input_length"`
			Out       int     `json:"output_length"`
			Hashes    []int   `json:"hash_ids"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("mooncake_2min.jsonl:%d: %v", line, err)
		}
		p := make([]int, 0, r.In)
		for _, h := range r.Hashes {
			for j := 0; j < 512 && len(p) < r.In; j++ {
				p = append(p, h*512+j)
			}
		}
		for len(p) < r.In {
			p = append(p, 1<<40+line<<20+len(p))
		}
		work = append(work, arrival{at: time.Duration(r.Timestamp / speed * float64(time.Millisecond)), prompt: p, maxTokens: max(1, r.Out)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return work
}

// loadAzure reads the Azure conversation sample; its prompts share nothing.
func loadAzure(t *testing.T, speed float64) []arrival {
	f, err := os.Open("../samples/azure_conv_2min.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var work []arrival
	var t0 time.Time
	for i, row := range rows[1:] {
		ts, err := time.Parse("2006-01-02 15:04:05.0000000", row[0])
		in, err2 := strconv.Atoi(row[1])
		out, err3 := strconv.Atoi(row[2])
		if err != nil || err2 != nil || err3 != nil {
			t.Fatalf("azure_conv_2min.csv:%d: bad row %q", i+2, row)
		}
		if i == 0 {
			t0 = ts
		}
		work = append(work, arrival{at: time.Duration(float64(ts.Sub(t0)) / speed), prompt: ids(i<<20, in), maxTokens: max(1, out)})
	}
	return work
}

// TestSampleTraces runs the samples through the default cost model in virtual time (the figures
// in BENCHMARKS.md) and checks that the defaults queue the Azure sample at the README's 4x
// without letting it run away.
func TestSampleTraces(t *testing.T) {
	fast := DefaultConfig()
	fast.PrefillPerToken = 10 * time.Microsecond
	for _, tc := range []struct {
		name  string
		speed float64
		work  []arrival
		cfg   Config
	}{
		{"azure_conv_2min.csv", 4, loadAzure(t, 4), DefaultConfig()},
		{"mooncake_2min.jsonl", 2, loadMooncake(t, 2), DefaultConfig()},
		{"mooncake_2min.jsonl --prefill-per-token 10us", 2, loadMooncake(t, 2), fast},
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
		if tc.name == "azure_conv_2min.csv" && (mean < 100*time.Millisecond || last > span+30*time.Second) {
			t.Errorf("defaults on the Azure sample at 4x: mean TTFT %v, drained %v after the last arrival; want visible queueing (>100ms) that drains within 30s",
				mean, last-span)
		}
	}
}

// TestSamplePrefixHitsMatchIdeal serves the Mooncake sample one request at a time with an
// unbounded cache: the simulator's cached tokens must then equal what an ideal prefix cache
// over the trace's 512-token block hashes finds, up to the partial last block and the prompt's
// last token, which is always computed.
func TestSamplePrefixHitsMatchIdeal(t *testing.T) {
	work := loadMooncake(t, 2)
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
		t.Fatal("the sample has no shared prefixes: the test proves nothing")
	}
}
