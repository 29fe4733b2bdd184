// Package analysis turns result rows into figures: latency percentiles (HdrHistogram), throughput,
// goodput at SLO, time series, fidelity of the replay to its trace, the prefix-cache hit rate
// (measured and the trace's ideal), cost, a run's latency samples for comparing runs (package
// compare compares them), and the summary.json, report.html and terminal tables written from
// them (under package runfolder's names, each written whole with its atomic write); the
// studies' pages (sweep, calibrate, trend, compare) draw with its chrome (chrome.go).
// It reads rows (results.Row, streamed from requests.parquet or handed over by the runner) and
// never talks to an endpoint, nor links the code that does (the behaviour checks' Results are
// package checkresult's, not the probes'); rows are aggregated incrementally, vegeta-style: Add
// each, Close once.
package analysis
