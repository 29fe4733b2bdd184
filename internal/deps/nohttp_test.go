package deps

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// noHTTP lists the packages that read results and must not link net/http: whatever reaches
// the network belongs to the run (client, checks, scrape, runner), not to what turns rows into
// figures and pages. Each names the packages outside the module that may still import
// net/http in its dependencies, and why; any other importer fails the test with the chain
// that brings it. Add a row for each new package of figures or pages (a report package).
var noHTTP = []struct {
	pkg string
	via map[string]string // importer of net/http -> why it cannot be cut
}{
	{pkg: "stats"},
	{pkg: "checkresult"},
	{pkg: "analysis", via: map[string]string{
		// results -> parquet-go -> parquet-go/compress/brotli -> andybalholm/brotli, whose
		// http.go (HTTPCompressor) imports net/http: parquet-go's codec table links every
		// codec, whichever a file uses, and analysis reads requests.parquet through results.
		"github.com/andybalholm/brotli": "parquet-go's brotli codec, through results",
	}},
	{pkg: "require", via: map[string]string{
		"github.com/andybalholm/brotli": "parquet-go's brotli codec, through analysis and results",
	}},
}

// TestNoHTTPInAnalysis walks each package's dependencies (go list -deps) and fails on every
// importer of net/http the table does not name, showing the import chain from the package.
func TestNoHTTPInAnalysis(t *testing.T) {
	for _, c := range noHTTP {
		graph := depGraph(t, c.pkg)
		found := map[string]bool{}
		for p, imports := range graph {
			if !slices.Contains(imports, "net/http") {
				continue
			}
			found[p] = true
			if _, ok := c.via[p]; !ok {
				t.Errorf("%s links net/http: %s", c.pkg, strings.Join(importChain(graph, module+c.pkg, p), " -> ")+" -> net/http")
			}
		}
		for p, why := range c.via {
			if !found[p] {
				t.Errorf("%s no longer reaches net/http through %s (%s): remove it from noHTTP", c.pkg, p, why)
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
