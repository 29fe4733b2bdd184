package analysis

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// recordGapsNS leaves a distribution exactly as recordNS of each gap in turn does (count,
// sum, min, max, every histogram bucket), over runs of equal gaps, zero, negative and
// beyond-range gaps; and returns the largest gap as the loop over them did.
func TestRecordGapsNSAsOneByOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	bulk, one := newLatency(), newLatency()
	for row := 0; row < 2000; row++ {
		offsets := make([]int64, rng.IntN(40))
		at := rng.Int64N(1e12) - 1e6
		for i := range offsets {
			switch rng.IntN(6) {
			case 0, 1: // the same instant (a zero-cost run)
			case 2:
				at -= rng.Int64N(3000) // a clock step back
			case 3:
				at += 2 * histHighestUS * 1000 // beyond the histogram's range
			default:
				at += rng.Int64N(80e6)
			}
			offsets[i] = at
		}
		var wantMax int64
		for i := 1; i < len(offsets); i++ {
			g := offsets[i] - offsets[i-1]
			one.recordNS(g)
			wantMax = max(wantMax, g)
		}
		if got := bulk.recordGapsNS(offsets); got != wantMax {
			t.Fatalf("row %d: largest gap %d, want %d", row, got, wantMax)
		}
	}
	if bulk.n != one.n || bulk.sumUS != one.sumUS || bulk.minUS != one.minUS || bulk.maxUS != one.maxUS {
		t.Fatalf("bulk n %d sum %v min %d max %d; one by one n %d sum %v min %d max %d",
			bulk.n, bulk.sumUS, bulk.minUS, bulk.maxUS, one.n, one.sumUS, one.minUS, one.maxUS)
	}
	if !reflect.DeepEqual(bulk.h.Export(), one.h.Export()) {
		t.Fatal("histograms differ")
	}
	if one.n < 10000 {
		t.Fatalf("only %d gaps", one.n)
	}
}

// addCompletion's output tokens per second are what adding each chunk's share in its own
// second gives, for chunks in order, out of order, negative and past the series' end.
func TestAddCompletionBuckets(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 1))
	var got series
	var want []float64
	for row := 0; row < 500; row++ {
		chunks := make([]int64, 1+rng.IntN(30))
		at := rng.Int64N(20e9) - 1e9
		for i := range chunks {
			switch rng.IntN(8) {
			case 0:
				at -= rng.Int64N(2e9)
			case 1:
				at = int64(maxSeriesSeconds)*1e9 + rng.Int64N(1e9)
			default:
				at += rng.Int64N(4e8)
			}
			chunks[i] = at
		}
		out := int64(1 + rng.IntN(50))
		got.addCompletion(chunks[0], chunks, out)
		w := float64(out) / float64(len(chunks))
		for _, c := range chunks {
			if i, ok := sec(c); ok {
				for len(want) <= i {
					want = append(want, 0)
				}
				want[i] += w
			}
		}
	}
	for i := range want {
		if got.outTokens[i] != want[i] {
			t.Fatalf("second %d: %v output tokens, want %v", i, got.outTokens[i], want[i])
		}
	}
	for i := len(want); i < len(got.outTokens); i++ {
		if got.outTokens[i] != 0 {
			t.Fatalf("second %d: %v output tokens, want 0", i, got.outTokens[i])
		}
	}
}
