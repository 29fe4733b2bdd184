package main

import (
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// definedFlags are the flags the named command defines, as main defines them.
func definedFlags(t *testing.T, name string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("replay "+name, pflag.ContinueOnError)
	fs.SortFlags = false
	commands[name].setup(fs, cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard})
	return fs
}

// TestRunFlagsGrouped: every flag run defines is under one heading of runFlagGroups, so a new
// flag without a group fails here; the table may name flags run does not define (yet).
func TestRunFlagsGrouped(t *testing.T) {
	seen := map[string]string{}
	for _, g := range runFlagGroups {
		for _, n := range g.flags {
			if prev, dup := seen[n]; dup {
				t.Errorf("--%s is in group %s and in group %s", n, prev, g.heading)
			}
			seen[n] = g.heading
		}
	}
	fs := definedFlags(t, "run")
	n := 0
	fs.VisitAll(func(f *pflag.Flag) {
		n++
		if groupOf(f.Name) == "" {
			t.Errorf("run's --%s is in no group of runFlagGroups (cmd/replay/flaggroups.go)", f.Name)
		}
	})
	if n < 80 {
		t.Errorf("run defines %d flags; the test looked at the wrong flag set", n)
	}
}

// TestRunHelpGrouped: `replay run --help` lists every flag once, under the headings in the
// table's order, the common ones first; sweep's own flags come before run's groups.
func TestRunHelpGrouped(t *testing.T) {
	code, _, help := runCLI(t, "run", "--help")
	if code != 0 {
		t.Fatalf("run --help: exit %d", code)
	}
	help, _, _ = strings.Cut(help, "\nExample:\n") // the examples name flags too
	flagLine := regexp.MustCompile(`(?m)^  (?:-\w, |    )--([a-z0-9-]+)`)
	counts := map[string]int{}
	for _, m := range flagLine.FindAllStringSubmatch(help, -1) {
		counts[m[1]]++
	}
	definedFlags(t, "run").VisitAll(func(f *pflag.Flag) {
		if counts[f.Name] != 1 {
			t.Errorf("run --help lists --%s %d times, want once", f.Name, counts[f.Name])
		}
	})
	last := -1
	for _, g := range runFlagGroups {
		i := strings.Index(help, "\n"+g.heading+":\n")
		if i < 0 || i < last {
			t.Errorf("heading %q missing or out of order in run --help", g.heading)
		}
		last = i
	}
	for _, common := range []string{"trace", "endpoint", "speed", "slo", "out"} {
		g := groupOf(common)
		section := help[strings.Index(help, "\n"+g+":\n")+len(g)+3:]
		if first := flagLine.FindStringSubmatch(section); first == nil || first[1] != common {
			t.Errorf("--%s is not first under %s: %v", common, g, first)
		}
	}
	if strings.Contains(help, "\nrun:\n") {
		t.Errorf("run --help has a heading of run's own: a run flag in no group")
	}
	_, _, sweep := runCLI(t, "sweep", "--help")
	own, trace := strings.Index(sweep, "\nsweep:\n"), strings.Index(sweep, "\ntrace:\n")
	if own < 0 || trace < own || !strings.Contains(sweep[own:trace], "--speeds") {
		t.Errorf("sweep --help: want its own flags (--speeds) under sweep: before run's groups")
	}
}
