package stats

import "sort"

// Pair is one request's value in two runs of the same trace (A and B), e.g. its TTFT in ms.
type Pair struct {
	ID string  `json:"id"`
	A  float64 `json:"a"`
	B  float64 `json:"b"`
}

// Diff is B - A.
func (p Pair) Diff() float64 { return p.B - p.A }

// Pairs matches two runs' per-request values by request id: only ids present in both, with
// finite values and a finite difference (a request that failed in either run is absent from
// its map, so only requests ok in both are compared). They come sorted by id, so that what is
// computed from them does not depend on map order.
func Pairs(a, b map[string]float64) []Pair {
	ps := make([]Pair, 0, min(len(a), len(b)))
	for id, va := range a {
		vb, ok := b[id]
		if ok && IsFinite(va) && IsFinite(vb) && IsFinite(vb-va) {
			ps = append(ps, Pair{ID: id, A: va, B: vb})
		}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].ID < ps[j].ID })
	return ps
}

// PairColumns splits pairs into A's values, B's values and the differences B - A.
func PairColumns(ps []Pair) (a, b, d []float64) {
	a, b, d = make([]float64, len(ps)), make([]float64, len(ps)), make([]float64, len(ps))
	for i, p := range ps {
		a[i], b[i], d[i] = p.A, p.B, p.Diff()
	}
	return a, b, d
}
