// Package checkresult holds what a behaviour check found, apart from the probes that find it:
// the checks' names and levels, Result with its verdict, and the side-by-side views of several
// endpoints' Results for the terminal (WriteText) and report.html (HTML).
//
// It is its own package so that what reads results (analysis, summary.json, the reports) need
// not link the probes: package checks sends requests with net/http and go-openai, and this
// package must never import either, nor any other package of the module. checks fills Results
// in; analysis stores and judges them.
package checkresult
