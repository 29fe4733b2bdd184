package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// flagGroup is one heading of a run's --help and the flags under it, the common ones first.
// A name ending in "*" stands for every flag with that prefix (the simulator's --sim-*,
// defined once with a prefix by addSimFlags).
type flagGroup struct {
	heading string
	flags   []string
}

// runFlagGroups puts each flag of a replay run (run, and the run flags sweep, cache-study and
// calibrate share) under one heading, so that --help reads as a few short lists rather than
// a hundred lines in definition order. A flag of run that is in no group fails
// TestRunFlagsGrouped; names of flags not defined (yet, or only in another command) are
// allowed, so the table can be ahead of the flags.
var runFlagGroups = []flagGroup{
	{"trace", []string{"trace", "format", "map", "on-error", "time-unit", "block-size", "hash-check", "log-year", "image-size", "image-tokens", "logged-model", "audio-tokens-per-second"}},
	{"endpoint", []string{"endpoint", "model", "tokenizer", "api", "api-override", "api-key-env", "api-key-file",
		"engine", "ca-file", "insecure", "timeout", "stall-timeout", "retries", "probe", "media-listen"}},
	{"routing", []string{"model-map", "headers", "header-allow", "affinity-header", "priority-map", "slo-class-by", "slo-class"}},
	{"schedule", []string{"speed", "from", "to", "limit", "duration", "max-concurrency", "warmup", "reset-cache"}},
	{"prompts", []string{"seed", "prefix-mode", "max-prompt-tokens", "options", "extra-body", "body", "send-ids"}},
	{"checks", []string{"slo", "require", "checks", "max-error-rate", "max-lateness", "min-exact", "max-skip",
		"tokenize-check", "calibration"}},
	{"outputs", []string{"out", "dry-run", "progress", "keep-prompts", "snapshot-every", "metrics-url", "metrics-interval",
		"metrics-listen", "metrics-linger", "cost-per-hour", "gpus", "trace-context", "otlp-endpoint"}},
	{"scale-out", []string{"shard", "start-at"}},
	{"advanced", []string{"config", "resume", "preconnect", "client-limit", "plan-memory", "memory", "sim-*"}},
}

// groupOf is the heading of runFlagGroups that holds name, "" when none does.
func groupOf(name string) string {
	for _, g := range runFlagGroups {
		for _, n := range g.flags {
			if matches(n, name) {
				return g.heading
			}
		}
	}
	return ""
}

// groupedUsages writes fs's flags under runFlagGroups' headings, each group in the table's
// order. Flags in no group are the command's own (sweep's --speeds, cache-study's
// --capacity-blocks) and come first, under own.
func groupedUsages(w io.Writer, fs *pflag.FlagSet, own string) {
	sets := map[string]*pflag.FlagSet{}
	set := func(heading string) *pflag.FlagSet {
		if sets[heading] == nil {
			sets[heading] = pflag.NewFlagSet(heading, pflag.ContinueOnError)
			sets[heading].SortFlags = false
		}
		return sets[heading]
	}
	fs.VisitAll(func(f *pflag.Flag) {
		if g := groupOf(f.Name); g != "" {
			return // added below, in the table's order
		}
		set(own).AddFlag(f)
	})
	for _, g := range runFlagGroups {
		for _, n := range g.flags {
			fs.VisitAll(func(f *pflag.Flag) {
				if groupOf(f.Name) == g.heading && matches(n, f.Name) {
					set(g.heading).AddFlag(f)
				}
			})
		}
	}
	headings := []string{own}
	for _, g := range runFlagGroups {
		headings = append(headings, g.heading)
	}
	for _, h := range headings {
		if s := sets[h]; s != nil && s.HasAvailableFlags() {
			fmt.Fprintf(w, "\n%s:\n%s", h, s.FlagUsages())
		}
	}
}

// matches says whether the table entry n names flag name (a trailing "*" is a prefix).
func matches(n, name string) bool {
	if p, ok := strings.CutSuffix(n, "*"); ok {
		return strings.HasPrefix(name, p)
	}
	return n == name
}
