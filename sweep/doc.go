// Package sweep finds an endpoint's capacity: the same trace replayed by runner.Run at
// increasing speed factors (open loop, speed.go) or numbers of requests in flight (closed loop,
// concurrency.go), the knee (the largest that held the SLO) and its cost per million output
// tokens, written as sweep.json and sweep.html (its figures and page are here) beside one run
// folder per point. It must not run requests itself or compute a run's figures: each point is a
// whole run, and its summary.json is the truth the sweep reads.
package sweep
