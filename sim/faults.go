package sim

import "time"

// fault is what fault injection decided for one request.
type fault int

const (
	faultNone fault = iota
	faultError
	faultRateLimit
	faultBreak
)

// decision is a request's fault draw: a class and a stall before its first byte.
type decision struct {
	fault fault
	stall time.Duration
}

// splitmix64 is a stateless mixer: the n-th request's draws depend only on the seed and n, so
// the same seed and the same request order give the same faults, however handlers interleave.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// unit maps a hash to [0,1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// decide draws the faults of the n-th request (n counts from 1 in arrival order).
func (f Faults) decide(seed int64, n uint64) decision {
	var d decision
	if f == (Faults{}) {
		return d
	}
	base := splitmix64(uint64(seed) ^ splitmix64(n))
	u := unit(base)
	switch {
	case u < f.ErrorRate:
		d.fault = faultError
	case u < f.ErrorRate+f.RateLimitRate:
		d.fault = faultRateLimit
	case u < f.ErrorRate+f.RateLimitRate+f.BreakRate:
		d.fault = faultBreak
	}
	if f.Stall > 0 && unit(splitmix64(base)) < f.StallRate {
		d.stall = f.Stall
	}
	return d
}
