// Package report draws a run's pages and its terminal table from analysis's figures: the
// chrome every page of the module shares (chrome.go: palette, figure and line types; page.go:
// the one style, the page font, the template functions, the figure list that ends a page and
// the whole-or-nothing page write; plots.go: the plot frame), report.html with its plots
// (report.go; headline.go, the first row; fidelity.go, the checks a reader judges; plots.go,
// report_figures.go, gpu_figures.go, queueing_figures.go: no empty chart; checks.go), the
// terminal table (table.go), the send lateness judged once for both at the verdict's limit
// (timeliness.go), and the run's files at its end (WriteRunFiles: analysis.WriteRunData's
// summary.json, calibration.json and queueing.csv, then report.html beside them). The study
// packages (sweep, calibrate, trend, compare, cachestudy) draw their pages with its chrome.
//
// summary.json stays analysis's to write: it is the figures as data, read back by require,
// trend, compare and `replay report`, none of which needs a page; report only adds the page
// drawn from the same aggregation.
//
// It must not compute figures (analysis does; it reads Metrics and Summary through their
// exported views), read Parquet, talk to an endpoint or link net/http (internal/deps holds
// that), nor be imported by analysis.
package report
