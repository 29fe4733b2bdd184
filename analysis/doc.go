// Package analysis turns result rows into figures: latency percentiles (HdrHistogram), throughput,
// goodput at SLO, time series, fidelity of the replay to its trace, the prefix-cache hit rate
// (measured and the trace's ideal), cost, a run's latency samples for comparing runs (package
// compare compares them), and summary.json written from them (WriteRunData, under package
// runfolder's names, written whole with its atomic write). It draws nothing: package report
// turns the figures into report.html and the terminal table (report imports analysis, never
// the reverse).
// It reads rows (results.Row, streamed from requests.parquet or handed over by the runner) and
// never talks to an endpoint, nor links the code that does (the behaviour checks' Results are
// package checkresult's, not the probes'); rows are aggregated incrementally, vegeta-style: Add
// each, Close once.
package analysis
