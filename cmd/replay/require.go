package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/require"
)

// requireFlag is --require on run, report and compare: limits over the summary that turn a
// run into a CI gate (exit 4 when one fails, after every file is written).
type requireFlag struct {
	expr   string
	stderr io.Writer // where check prints each term
	reqs   []require.Requirement
}

func (r *requireFlag) add(fs *pflag.FlagSet, stderr io.Writer) {
	r.stderr = stderr
	fs.StringVar(&r.expr, "require", "", "exit 4 unless every limit holds, e.g. 'ttft.p95<=500ms,itl.p99<=60ms,goodput>=95%,errors<=1%,fidelity.prompt>=100%' (a paired run or compare: 'delta.ttft.p95<=+10%' too, B against A; run: 'checks' or 'checks.tool_calls', the behaviour checks passed); a duration limit takes what Go's time.ParseDuration reads (500ms, 1.5s, 1h30m), a bare number is ms")
}

// parse checks the expression before anything runs; the error names the flag and the term.
func (r *requireFlag) parse() error {
	var err error
	if r.reqs, err = require.Parse(r.expr); err != nil {
		return fmt.Errorf("--require: %w", err)
	}
	return nil
}

// check judges s (against base, run A, for delta terms), prints one line a term on stderr and
// returns an exit-4 error when any failed.
func (r *requireFlag) check(s, base *analysis.Summary) error {
	if len(r.reqs) == 0 || s == nil {
		return nil
	}
	outs, ok := require.CheckAll(r.reqs, s, base)
	fmt.Fprintln(r.stderr, "requirements (--require):")
	if err := require.WriteOutcomes(r.stderr, outs); err != nil {
		return err
	}
	if ok {
		return nil
	}
	failed := 0
	for _, o := range outs {
		if !o.Pass {
			failed++
		}
	}
	return &exitError{code: 4, err: fmt.Errorf("%d of %d --require limits failed", failed, len(outs))}
}

// gate combines a command's own outcome with its requirements: a failed run keeps its exit
// code (the requirements are still printed); an ok one gets 4 when a limit failed.
func (r *requireFlag) gate(runErr error, s, base *analysis.Summary) error {
	reqErr := r.check(s, base)
	if runErr != nil {
		return runErr
	}
	return reqErr
}
