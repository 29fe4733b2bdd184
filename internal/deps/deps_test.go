package deps

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/llm-replay/replay/"

// allowed lists, for every package of the module, the module's packages it may import
// (its non-test files, under every build tag the project uses). A package missing from the
// table is an error too: a new package must be given its place. ARCHITECTURE.md explains the
// layers; keep the two in step.
var allowed = map[string][]string{
	// Leaves: each owns one concept and imports nothing else of ours.
	"internal/intern":  {},
	"internal/jsoncur": {},
	"internal/pqcheck": {},
	"internal/testenv": {"results"}, // invented result rows for the tests of what reads them
	"internal/deps":    {},
	"tokcheck":         {"analysis"}, // the server's tokenize route against replay's counts, after the run
	"internal/gchold":  {},           // the collector held back while a schedule runs
	"prefixcache":      {},
	"scheduler":        {},
	"sim":              {"internal/jsoncur", "media"}, // media: the image rules replay's builder counts with
	"synth/tokenizer":  {"internal/jsoncur"},
	"samples":          {},
	"internal/jsonv":   {"internal/jsoncur"},
	"engine":           {},              // engines' dialects over HTTP; scrape takes its tables by engine name
	"checkresult":      {},              // what a behaviour check found and its views; no probing code
	"stats":            {},              // the statistics of comparing runs, on plain samples
	"runfolder":        {},              // a run folder's file names and its one atomic write
	"hfhub":            {},              // the Hugging Face cache's layout and the hub's download protocol; never tokenizes
	"media":            {},              // logged images' headers, the processors' image counts, stand-in images
	"checks":           {"checkresult"}, // behaviour probes of one endpoint over HTTP; the runner hands it answers, not rows

	// The trace and its sources: files, request logs, the generator, their statistics.
	"trace":             {"internal/intern", "internal/pqcheck"},
	"internal/outfiles": {"trace"},
	"ingest":            {"trace", "internal/gchold", "internal/intern", "internal/jsoncur", "internal/outfiles", "internal/pqcheck"}, // gchold: the machine's memory bounds a file held to sort
	"chat":              {"synth/tokenizer"},
	"requestlog":        {"chat", "ingest", "internal/jsonv", "internal/outfiles", "internal/pqcheck", "media", "synth/tokenizer", "trace"},
	"gatewaylog":        {"ingest", "media", "trace"}, // media: the images of logged bodies
	"otlp":              {"ingest", "trace"},
	"gen":               {"trace", "prefixcache"},
	"tracestat":         {"ingest", "prefixcache", "trace"},
	"internal/genlog":   {"chat"},
	// Where each request goes: the model map, the logged headers replayed, the SLO class.
	"routing": {"trace"},

	// Building prompts, then sending them: the scheduler and client know nothing of each other.
	"synth":  {"chat", "media", "synth/tokenizer", "trace"},
	"client": {"chat", "internal/jsoncur"},

	// Results and their analysis; scrape writes its samples in results' file format. The row
	// and the file of rows are apart so that analysis links no parquet-go (nor net/http): it
	// takes rows from runload, which reads them for it.
	"results":         {"runfolder"},
	"results/rowfile": {"internal/pqcheck", "results", "runfolder"},
	"scrape":          {"results"},
	"analysis":        {"results", "prefixcache", "checkresult", "runfolder", "stats"}, // checkresult: the checks' Results in summary.json and the reports
	// The pages: the chrome every page draws with, report.html and the terminal table, from
	// analysis's figures; analysis never imports it.
	"report":   {"analysis", "checkresult", "runfolder"},
	"runload":  {"analysis", "results", "results/rowfile", "runfolder"},
	"snapshot": {"analysis", "report", "results", "results/rowfile"},
	"live":     {"results"},
	// Replay's own spans (one per finished row, over OTLP) and the requests' trace context.
	"telemetry": {"results"},
	"progress":  {"results", "scheduler"}, // the run's live display, from the scheduler's counters and failed rows
	// The requirement language: limits judged on summaries; analysis never imports it.
	"require": {"analysis", "checkresult", "stats"}, // checkresult: the checks terms read the checks' verdicts
	// Shards: one run's identity across machines and the exact merge of their folders.
	"shard": {"analysis", "report", "results", "results/rowfile", "runfolder", "scheduler"},

	// Wiring: the run connects the stages; the command only parses flags and calls.
	"runner": {"analysis", "chat", "checks", "client", "engine", "gatewaylog", "gen", "hfhub", "ingest", "internal/gchold", "live", "media", "otlp", "prefixcache", "requestlog", "progress", "report", "results", "results/rowfile", "routing", "runfolder",
		"runload", "samples", "scheduler", "scrape", "shard", "sim", "snapshot", "synth", "synth/tokenizer", "telemetry", "tokcheck", "trace"},
	// Studies: each drives runs (or reads their folders) and owns its figures and its page.
	"sweep":     {"analysis", "ingest", "report", "runfolder", "runner", "trace"}, // a closed loop is a designed trace replayed as a Parquet file
	"calibrate": {"analysis", "report", "results/rowfile", "runfolder", "runner", "trace"},
	"trend":     {"analysis", "report", "runfolder"}, // reads run folders' summary.json; runs nothing
	// scrape: the engine's KV capacity read once off its metrics page; results: the arms' rows paired
	"cachestudy": {"analysis", "prefixcache", "report", "results", "results/rowfile", "runfolder", "runner", "scrape", "stats"},
	"compare":    {"analysis", "checkresult", "report", "require", "results", "results/rowfile", "runfolder", "runload", "runner", "stats"}, // a paired run's endpoints, B against A
	"cmd/replay": {"analysis", "cachestudy", "calibrate", "chat", "compare", "client", "gatewaylog", "gen", "ingest", "internal/outfiles", "otlp", "report", "requestlog", "require", "routing", "runfolder", "runload", "runner",
		"shard", "sim", "sweep", "synth", "synth/tokenizer", "trace", "tracestat", "trend"},
	"internal/genlog/cmd/genlog": {"internal/genlog"},
	"e2e/slurm":                  {"results", "results/rowfile", "shard"}, // e2e/slurm/e2e.sh's checker of the merged run
}

// TestImports checks every package's imports of the module against the table.
func TestImports(t *testing.T) {
	root := repoRoot()
	for pkg, imports := range modulePackages(t, root) {
		may, ok := allowed[pkg]
		if !ok {
			t.Errorf("%s is not in the import rules (internal/deps/deps_test.go): give it its place", pkg)
			continue
		}
		for _, imp := range imports {
			if !slices.Contains(may, imp) {
				t.Errorf("%s imports %s, which the import rules do not allow", pkg, imp)
			}
		}
	}
}

// TestRulesNameRealPackages keeps the table honest: every package and allowed import it names
// exists, so a rename cannot leave a stale rule that allows anything.
func TestRulesNameRealPackages(t *testing.T) {
	pkgs := modulePackages(t, repoRoot())
	for pkg, may := range allowed {
		if _, ok := pkgs[pkg]; !ok {
			t.Errorf("the rules name %s, which is not a package of the module", pkg)
		}
		for _, m := range may {
			if _, ok := pkgs[m]; !ok {
				t.Errorf("the rules let %s import %s, which is not a package of the module", pkg, m)
			}
		}
	}
}

// modulePackages maps every package folder of the module (relative path) to the module
// packages its non-test files import, with and without the daulet build tag.
func modulePackages(t *testing.T, root string) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		if rel != "." && fileExists(filepath.Join(path, "go.mod")) {
			return filepath.SkipDir // another module (e2e/ollama's own go.mod)
		}
		imports, ok := dirImports(t, path)
		if ok {
			pkgs[filepath.ToSlash(rel)] = imports
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// dirImports is the module packages imported by dir's non-test Go files under the default
// build context and under -tags daulet; ok is false when dir holds no Go package.
func dirImports(t *testing.T, dir string) (imports []string, ok bool) {
	t.Helper()
	for _, tags := range [][]string{nil, {"daulet"}} {
		ctx := build.Default
		ctx.BuildTags = tags
		p, err := ctx.ImportDir(dir, 0)
		if err != nil {
			if _, none := err.(*build.NoGoError); none {
				continue
			}
			t.Fatalf("%s: %v", dir, err)
		}
		ok = true
		for _, imp := range p.Imports {
			if rel, found := strings.CutPrefix(imp, module); found && !slices.Contains(imports, rel) {
				imports = append(imports, rel)
			}
		}
	}
	return imports, ok
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// TestArchitectureListsEveryPackage keeps ARCHITECTURE.md's package table in step with the
// code: every package of the module has a row, and every row names a package.
func TestArchitectureListsEveryPackage(t *testing.T) {
	root := repoRoot()
	b, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "| `"); ok {
			if name, _, ok := strings.Cut(rest, "`"); ok {
				listed[strings.TrimSuffix(name, "/")] = true
			}
		}
	}
	pkgs := modulePackages(t, root)
	for pkg := range pkgs {
		if !listed[pkg] && pkg != "internal/genlog/cmd/genlog" { // genlog's command, covered by its row
			t.Errorf("ARCHITECTURE.md has no row for package %s", pkg)
		}
	}
	for name := range listed {
		if _, ok := pkgs[name]; !ok {
			t.Errorf("ARCHITECTURE.md lists %s, which is not a package of the module", name)
		}
	}
}
