package main

import (
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionInProcess: `replay --version` and `replay version` print this binary's own build
// information, the same text, exit 0.
func TestVersionInProcess(t *testing.T) {
	want := versionText(debug.ReadBuildInfo())
	for _, arg := range []string{"--version", "version"} {
		code, out, errOut := runCLI(t, arg)
		if code != 0 || out != want || errOut != "" {
			t.Errorf("replay %s: exit %d, stdout %q (want %q), stderr %q", arg, code, out, want, errOut)
		}
		if !strings.HasPrefix(out, "replay ") || !strings.Contains(out, runtime.Version()) {
			t.Errorf("replay %s: %q names neither replay nor %s", arg, out, runtime.Version())
		}
	}
}

// TestVersionBuilt: a binary built by `go build` says what Go stamped into it, as `go version -m`
// reads it: the revision and whether the tree had changes when the build had VCS information
// (a clone, -buildvcs not false), else that it has none (a git worktree, -buildvcs=false).
func TestVersionBuilt(t *testing.T) {
	bin := replayBin(t)
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("replay --version: %v", err)
	}
	meta, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	stamped := map[string]string{}
	for _, line := range strings.Split(string(meta), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "build" {
			k, v, _ := strings.Cut(f[1], "=")
			stamped[k] = v
		}
	}
	got := string(out)
	if !strings.HasPrefix(got, "replay devel\n") || !strings.Contains(got, "module    github.com/llm-replay/replay\n") {
		t.Errorf("replay --version:\n%s\nwant a devel build of github.com/llm-replay/replay", got)
	}
	if !strings.Contains(got, "go        "+runtime.Version()) {
		t.Errorf("replay --version:\n%s\nwant the Go that built it, %s", got, runtime.Version())
	}
	rev := stamped["vcs.revision"]
	switch {
	case rev == "" && !strings.Contains(got, "revision  unknown"):
		t.Errorf("replay --version:\n%s\nthe build has no VCS information; want it said", got)
	case rev != "" && !strings.Contains(got, "revision  "+rev):
		t.Errorf("replay --version:\n%s\nwant the stamped revision %s", got, rev)
	case rev != "" && (stamped["vcs.modified"] == "true") != strings.Contains(got, "(modified"):
		t.Errorf("replay --version:\n%s\nwant modified as stamped: %s", got, stamped["vcs.modified"])
	}
}

// TestVersionText: the three kinds of build: installed at a version (no VCS settings), built in
// a clone ("(devel)" with vcs.*), built without VCS information; and no build information.
func TestVersionText(t *testing.T) {
	main := debug.Module{Path: "github.com/llm-replay/replay"}
	tagged := &debug.BuildInfo{GoVersion: "go1.26.0", Main: main}
	tagged.Main.Version = "v1.4.0"
	clone := &debug.BuildInfo{GoVersion: "go1.26.0", Main: main, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123abcd"},
		{Key: "vcs.time", Value: "2026-12-06T03:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	clone.Main.Version = "(devel)"
	novcs := &debug.BuildInfo{GoVersion: "go1.26.0", Main: main}
	novcs.Main.Version = "(devel)"
	for _, c := range []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want []string
		not  []string
	}{
		{"tagged", tagged, true, []string{"replay v1.4.0\n", "go1.26.0"}, []string{"revision", "modified"}},
		{"clone", clone, true, []string{"replay devel\n", "revision  0123abcd (modified", "committed 2026-12-06T03:00:00Z", "go1.26.0"}, nil},
		{"no vcs", novcs, true, []string{"replay devel\n", "revision  unknown", "-buildvcs=false"}, []string{"modified"}},
		{"no info", nil, false, []string{"no build information"}, nil},
	} {
		got := versionText(c.bi, c.ok)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: %q holds %q", c.name, got, n)
			}
		}
	}
}
