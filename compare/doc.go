// Package compare sets runs of one trace side by side. A paired run (Paired: every request
// sent to two or more endpoints at its scheduled time, by runner.RunEndpoints) is compared
// request by request: the first endpoint, A, against each other one, B, with the paired tests
// of TTFT, e2e and TPOT held to a practical margin, the verdict printed after the endpoints'
// tables, compare.json and compare.html beside their folders, and the requirements judged on
// every endpoint and on each B against A. Two finished runs' folders (`replay compare`) are
// set side by side by Unpaired: their distributions, and the per-request tests when they
// share request ids.
//
// It owns the comparison's figures and pages; it must not run requests but through
// runner.RunEndpoints, nor compute a run's own figures (analysis does), and no earlier stage
// may import it.
package compare
