package live

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// vllmNames are the vLLM series the dashboard may read beside replay's own (vLLM docs,
// "Production Metrics", V1 engine names).
var vllmNames = map[string]bool{
	"vllm:num_requests_running": true, "vllm:num_requests_waiting": true,
	"vllm:time_to_first_token_seconds_bucket": true, "vllm:kv_cache_usage_perc": true,
	"vllm:prefix_cache_hits_total": true, "vllm:prefix_cache_queries_total": true,
}

// identifier finds metric-name-like words in PromQL; label matchers and functions are
// filtered out after.
var identifier = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)

// promQLWords are the functions, keywords and labels the dashboard's queries use.
var promQLWords = map[string]bool{"sum": true, "by": true, "rate": true, "histogram_quantile": true, "avg": true,
	"le": true, "population": true, "class": true, "endpoint": true, "m": true, "verdict": true}

// The dashboard parses and names only series replay registers or vLLM exports.
func TestDashboardNamesRealSeries(t *testing.T) {
	b, err := os.ReadFile("grafana/dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("grafana/dashboard.json: %v", err)
	}
	ours := map[string]bool{}
	m := New(Config{})
	rs := rows(2) // a vector's series exist once observed
	for i := range rs {
		m.Observe(&rs[i], "stream/plain")
	}
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		ours[f.GetName()] = true
	}
	// Histograms are exposed as _bucket, _sum and _count series.
	for name := range ours {
		for _, s := range []string{"_bucket", "_sum", "_count"} {
			ours[name+s] = true
		}
	}
	n := 0
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			expr := regexp.MustCompile(`\{[^}]*\}|\[[^\]]*\]|"[^"]*"`).ReplaceAllString(tg.Expr, "")
			for _, w := range identifier.FindAllString(expr, -1) {
				if promQLWords[w] || (!strings.HasPrefix(w, "replay_") && !strings.Contains(w, ":")) {
					continue
				}
				n++
				if !ours[w] && !vllmNames[w] {
					t.Errorf("panel %q reads %s, which neither replay nor vLLM exports", p.Title, w)
				}
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d series names found in the dashboard: the parser missed them", n)
	}
}
