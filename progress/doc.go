// Package progress owns a run's live display on stderr (--progress): a redrawn bar on a
// terminal, a plain line every few seconds otherwise, or one JSON object a line for CI logs and
// other tools, read from the scheduler's counters, the failed rows it is handed and the ages
// of the requests in flight (inflight.go: the measured sender it wraps), its lateness judged
// at the limit the run's verdict uses.
//
// It must not compute the run's figures (analysis does) or decide when to send; it reads the
// counters and rows as they are.
package progress
