package main

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestRunSimFlagsAreSims: every flag of replay sim's model is on replay run as --sim-NAME with
// the same type, default and help (prefixed "simulator: "), and the --sim-* flags run had before
// they were derived are all still there.
func TestRunSimFlagsAreSims(t *testing.T) {
	simFS := pflag.NewFlagSet("sim", pflag.ContinueOnError)
	setupSim(simFS, cli{stdout: io.Discard, stderr: io.Discard})
	runFS := pflag.NewFlagSet("run", pflag.ContinueOnError)
	setupRun(runFS, cli{stdout: io.Discard, stderr: io.Discard})
	n := 0
	simFS.VisitAll(func(f *pflag.Flag) {
		if f.Name == "listen" || f.Name == "tokenizer" || f.Name == "arrival-log" || f.Name == "serve" {
			return // the server's own, not its model (a run's simulator serves --model-map's models)
		}
		n++
		r := runFS.Lookup("sim-" + f.Name)
		if r == nil {
			t.Errorf("replay run has no --sim-%s", f.Name)
			return
		}
		if r.Value.Type() != f.Value.Type() || r.DefValue != f.DefValue {
			t.Errorf("--sim-%s: %s default %q, sim's --%s: %s default %q", f.Name, r.Value.Type(), r.DefValue, f.Name, f.Value.Type(), f.DefValue)
		}
		want := "simulator: " + strings.ReplaceAll(f.Usage, "--", "--sim-")
		if r.Usage != want {
			t.Errorf("--sim-%s help %q, want %q", f.Name, r.Usage, want)
		}
	})
	if n < 20 {
		t.Errorf("only %d model flags on replay sim", n)
	}
	for _, name := range []string{"zero-cost", "prefill-per-token", "step-base", "max-batch", "fault-error-rate",
		"fault-429-rate", "fault-break-rate", "fault-garbage-rate", "fault-stall-rate", "fault-stall", "fault-stall-at", "kv-blocks"} {
		if runFS.Lookup("sim-"+name) == nil {
			t.Errorf("replay run lost --sim-%s", name)
		}
	}
}
