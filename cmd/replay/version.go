package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// versionText is what `replay --version` and `replay version` print: the module's version,
// then the VCS revision the binary was built from, whether the tree had changes, and the Go
// that built it. `go install module@vX` stamps the version and no VCS settings; `go build` in a
// clone stamps "(devel)" and the settings vcs.revision, vcs.time and vcs.modified; go run, a
// build with -buildvcs=false, in a git worktree (Go looks for a .git folder, and a worktree's .git is
// a file) or outside a repository has neither, and says so rather than guess.
func versionText(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "replay (no build information: built without module support)\n"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	var b strings.Builder
	fmt.Fprintf(&b, "replay %s\n", v)
	if path := bi.Main.Path; path != "" {
		fmt.Fprintf(&b, "  module    %s\n", path)
	}
	switch rev := settings["vcs.revision"]; {
	case rev != "":
		modified := ""
		if settings["vcs.modified"] == "true" {
			modified = " (modified: the tree had uncommitted changes)"
		}
		fmt.Fprintf(&b, "  revision  %s%s\n", rev, modified)
		if t := settings["vcs.time"]; t != "" {
			fmt.Fprintf(&b, "  committed %s\n", t)
		}
	case v == "devel":
		b.WriteString("  revision  unknown (built without VCS information: go run, -buildvcs=false, a git worktree, or outside a git checkout)\n")
	}
	fmt.Fprintf(&b, "  go        %s\n", bi.GoVersion)
	return b.String()
}

// buildVersion is the version summary.json records for a run (run.version): the module's
// version, or "devel" with the revision's first 12 digits (and "+modified") when built from a
// clone, "devel" alone when the build says nothing more.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi == nil {
		return "devel"
	}
	v := bi.Main.Version
	if v != "" && v != "(devel)" {
		return v
	}
	v, modified := "devel", ""
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && len(s.Value) >= 12:
			v += "+" + s.Value[:12]
		case s.Key == "vcs.modified" && s.Value == "true":
			modified = "+modified"
		}
	}
	return v + modified
}
