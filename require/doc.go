// Package require is the requirement language that turns a run into a CI gate (`--require` on
// run, report and compare): parsing an expression such as
// "ttft.p95<=500ms,goodput>=95%,delta.ttft.p95<=+10%,checks" into Requirements (Parse, and
// Format back), judging each against one run's analysis.Summary or, for a delta term, a run B
// against its baseline A (Check, CheckPaired, CheckAll), and the terminal lines of the
// judged Outcomes (WriteOutcomes).
//
// It reads summaries and must not compute them: every figure a term names is analysis's, read
// from summary.json's fields as they are. It imports analysis and never the reverse, since a
// stage never imports a later one. The seam is the judged result: an Outcome is plain data
// (term, value and limit as printed, pass, reason) owned here, and nothing of analysis holds
// one. summary.json carries no requirements (a stored run is judged again by `replay report
// --require`, so the limits belong to whoever asks, not to the run), and report.html shows none;
// the callers that keep or draw outcomes (a paired run's compare.json and compare.html, the
// commands' exit codes) sit after this package and import it. Were analysis to show outcomes
// itself, it would have to import the language; keeping the outcomes out of it keeps analysis
// a stage of figures only.
//
// It must not read files, talk to an endpoint or name a command-line flag in its errors (the
// command adds the flag's name); the hints in an Outcome's reason may say which setting would
// have given the figure (--slo, --checks), since they are read by whoever ran the command.
package require
