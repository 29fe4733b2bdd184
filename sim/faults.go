package sim

import (
	"net/http"
	"strconv"
)

// Fault is what fault injection decided for one request: at most one fault, so that a test
// knows the single outcome to expect from each request.
type Fault int

// The faults, in the order their rates are laid end to end on [0,1) (see Faults.Draw).
const (
	FaultNone      Fault = iota
	FaultError           // HTTP 500
	FaultRateLimit       // HTTP 429
	FaultBreak           // the connection is cut half-way through the answer
	FaultStall           // the answer stalls for Faults.Stall at Faults.StallAt, then goes on
	FaultGarbage         // HTTP 200 with SSE frames that are not JSON
)

// faultNames are the names String gives, also used in logs and tests of other packages.
var faultNames = [...]string{"none", "error", "rate_limit", "break", "stall", "garbage"}

// String returns "none", "error", "rate_limit", "break", "stall" or "garbage".
func (f Fault) String() string {
	if f >= 0 && int(f) < len(faultNames) {
		return faultNames[f]
	}
	return "fault(" + strconv.Itoa(int(f)) + ")"
}

// Draw returns the fault of the request whose X-Request-Id header is requestID under seed
// (Config.Seed). It depends on nothing else, so a test that names its requests knows each one's
// fault however their arrivals interleave.
func (f Faults) Draw(seed int64, requestID string) Fault {
	if f.none() {
		return FaultNone
	}
	return f.pick(unit(splitmix64(uint64(seed) ^ splitmix64(fnv1a(requestID)))))
}

// drawFault draws a request's fault: from its X-Request-Id when it has one, so that a test can
// predict it whatever the arrival order, else from its arrival number n.
func (s *Server) drawFault(r *http.Request, n uint64) Fault {
	if id := r.Header.Get("X-Request-Id"); id != "" {
		return s.cfg.Faults.Draw(s.cfg.Seed, id)
	}
	return s.cfg.Faults.drawArrival(s.cfg.Seed, n)
}

// drawArrival returns the fault of the n-th request without an X-Request-Id (n counts from 1 in
// arrival order), so the same seed and the same request order give the same faults.
func (f Faults) drawArrival(seed int64, n uint64) Fault {
	if f.none() {
		return FaultNone
	}
	return f.pick(unit(splitmix64(uint64(seed) ^ splitmix64(n))))
}

// none reports whether no fault can be drawn, which spares the hashing on the common path.
func (f Faults) none() bool {
	return f.ErrorRate+f.RateLimitRate+f.BreakRate+f.StallRate+f.GarbageRate == 0
}

// pick maps one uniform draw u in [0,1) to a fault: the rates are consecutive intervals, so the
// faults exclude each other and each keeps its own rate.
func (f Faults) pick(u float64) Fault {
	edge := 0.0
	for i, rate := range [...]float64{f.ErrorRate, f.RateLimitRate, f.BreakRate, f.StallRate, f.GarbageRate} {
		edge += rate
		if u < edge {
			return Fault(i + 1)
		}
	}
	return FaultNone
}

// splitmix64 is a stateless mixer: a draw depends only on its inputs, never on which handler
// ran first.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// fnv1a hashes a request id; unlike hash/maphash it is the same in every process, which a
// test in another process (or a rerun) relies on.
func fnv1a(s string) uint64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 0x100000001b3
	}
	return h
}

// unit maps a hash to [0,1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }
