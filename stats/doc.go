// Package stats is the statistics of comparing runs, apart from any run: quantiles by the
// nearest-rank rule, the percentile bootstrap of a difference of quantiles (each sample on its
// own, or resampled pairs), the Mann-Whitney U and Wilcoxon signed-rank tests, the paired test
// of two runs of one trace with its verdict line, the two-sample Kolmogorov-Smirnov distance,
// and how a figure is printed.
//
// It takes float64 samples and returns numbers and lines; it must not read files, know result
// rows or summaries, or import any package of the module (analysis turns rows into the samples
// and keeps the figures' place in summary.json and compare.json).
package stats
