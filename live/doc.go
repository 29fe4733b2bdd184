// Package live exports replay's own Prometheus metrics while a run goes (replay run
// --metrics-listen): requests scheduled, sent, in flight, held at the client's limit, finished
// and failed by class; histograms of TTFT, ITL, TPOT, e2e and send lateness; tokens in and out;
// and the verdict so far. A run's result rows are fed in one at a time as they finish, so the
// dashboards that watch the engine can watch the load generator beside it, at hour 3 of a
// 24-hour replay rather than at its end.
//
// It owns only these live figures. It must not compute the run's summary (package analysis
// does, exactly, from the rows), talk to the endpoint or decide when to send.
package live
