// Package trend is replay trend: many runs of one trace, read from their folders'
// summary.json, side by side over wall time, each figure's spread over the runs and the runs
// outside the median ± k·MAD band of the others, written as trend.json and trend.html. It
// runs nothing and reads nothing but summaries.
package trend
