package deps

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// noHTTP lists the packages that read results and must not link net/http: whatever reaches
// the network belongs to the run (client, checks, scrape, runner), not to what turns rows into
// figures and pages. None may reach net/http by any path: a failure shows the import chain
// that brings it. Reading requests.parquet links it (parquet-go's codec table links
// andybalholm/brotli, whose http.go imports net/http), so these packages take rows from
// runload rather than read the file. Add a row for each new package of figures or pages.
var noHTTP = []string{
	"stats",
	"checkresult",
	"analysis",
	"require",
	"report", // the page chrome, report.html and the terminal table
}

// TestNoHTTPInAnalysis walks each package's dependencies (go list -deps) and fails on every
// importer of net/http among them, showing the import chain from the package.
func TestNoHTTPInAnalysis(t *testing.T) {
	for _, pkg := range noHTTP {
		graph := depGraph(t, pkg)
		if _, ok := graph["net/http"]; !ok {
			continue
		}
		for p, imports := range graph {
			if slices.Contains(imports, "net/http") {
				t.Errorf("%s links net/http: %s", pkg, strings.Join(importChain(graph, module+pkg, p), " -> ")+" -> net/http")
			}
		}
	}
}

// depGraph maps every package in pkg's dependencies (pkg included) to its imports.
func depGraph(t *testing.T, pkg string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./"+pkg)
	cmd.Dir = repoRoot()
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list -deps ./%s: %v\n%s", pkg, err, ee.Stderr)
		}
		t.Fatalf("go list -deps ./%s: %v", pkg, err)
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		graph[f[0]] = f[1:]
	}
	return graph
}

// importChain is a shortest chain of imports from one package to another in graph.
func importChain(graph map[string][]string, from, to string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == to {
			var chain []string
			for ; p != ""; p = prev[p] {
				chain = append(chain, strings.TrimPrefix(p, module))
			}
			slices.Reverse(chain)
			return chain
		}
		for _, imp := range graph[p] {
			if _, seen := prev[imp]; !seen {
				prev[imp] = p
				queue = append(queue, imp)
			}
		}
	}
	return []string{from, "?", to}
}
