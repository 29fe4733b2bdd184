// Package snapshot owns a running replay's partial summaries: summary.json and report.html
// refreshed every interval, marked partial, over the rows so far, which it keeps in closed
// Parquet segments of their own (partial/rows-NNNN.parquet) because requests.parquet gets its
// footer only at the end. It is one of a run's row outputs (runner.Output).
//
// It is apart from analysis because it writes Parquet (rowfile), and what links parquet-go
// links net/http (through its brotli codec), which analysis must not. It computes nothing
// itself (the figures and pages are analysis'), and it removes its segments when the run
// closes.
package snapshot
