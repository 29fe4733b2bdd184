package scrape

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"

	"github.com/llm-replay/replay/results"
)

// fixtureCase is one engine version's page in testdata (written by replay from the source
// its first line cites) and what each table must read off it.
type fixtureCase struct {
	file    string
	engine  string // package engine's name, for ForEngine
	want    map[string]float64
	dropped int
}

var fixtureCases = []fixtureCase{
	{"vllm-v1.prom", "vllm", map[string]float64{
		results.RequestsRunning: 5, results.RequestsWaiting: 1, results.KVCacheUsage: 0.42,
		results.PrefixCacheQueriedTokens: 2000, results.PrefixCacheHitTokens: 500,
		results.SpecDraftTokens: 300, results.SpecAcceptedTokens: 210}, 0},
	// The -1 hit rate of prefix caching off is dropped, not kept as a rate.
	{"vllm-v0.prom", "vllm", map[string]float64{
		results.RequestsRunning: 3, results.RequestsWaiting: 2, results.KVCacheUsage: 0.3}, 1},
	// Hits of the 0.11 name beside queries of the old one: the pair comes from the old
	// generation, which has both, and which counts blocks (its help text says so).
	{"vllm-early-v1.prom", "vllm", map[string]float64{
		results.RequestsRunning: 2, results.RequestsWaiting: 0, results.KVCacheUsage: 0.2,
		results.PrefixCacheQueriedBlocks: 64, results.PrefixCacheHitBlocks: 16}, 0},
	// Two replicas: counts summed, usage averaged.
	{"ray-serve-vllm.prom", "vllm", map[string]float64{
		results.RequestsRunning: 7, results.RequestsWaiting: 1, results.KVCacheUsage: 0.5,
		results.PrefixCacheQueriedTokens: 1000, results.PrefixCacheHitTokens: 250}, 0},
	{"sglang.prom", "sglang", map[string]float64{
		results.RequestsRunning: 7, results.RequestsWaiting: 3, results.KVCacheUsage: 0.55,
		results.PrefixCacheHitRate: 0.25, RetractedNow: 2, results.PrefixCacheQueriedTokens: 4000}, 0},
	{"trtllm-serve.prom", "trtllm", map[string]float64{
		results.RequestsRunning: 6, results.RequestsWaiting: 2, results.KVCacheUsage: 0.35,
		results.PrefixCacheHitRate: 0.4, results.PrefixCacheQueriedTokens: 3000, results.PrefixCacheHitTokens: 1200}, 0},
	{"trtllm-serve-unprefixed.prom", "trtllm", map[string]float64{}, 0},
	// Running is the active series alone, not active+max+scheduled+context.
	{"triton-trtllm.prom", "trtllm", map[string]float64{results.RequestsRunning: 3}, 0},
}

func readFixture(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "# source: ") {
		t.Fatalf("%s: first line must cite its source", file)
	}
	return string(b)
}

// TestFixturesReadEachEngine: each engine version's page, read by its engine's table and by
// Any, gives running, waiting, KV usage and the hit rate where that version serves them.
func TestFixturesReadEachEngine(t *testing.T) {
	for _, c := range append(slices.Clone(fixtureCases), moreFixtureCases...) {
		t.Run(c.file, func(t *testing.T) {
			page := readFixture(t, c.file)
			for _, names := range []Names{ForEngine(c.engine), Any} {
				got, st, err := parse(strings.NewReader(page), expfmt.FmtText, names)
				if err != nil {
					t.Fatalf("%s: %v", names.Source, err)
				}
				if fmt.Sprint(got) != fmt.Sprint(c.want) {
					t.Errorf("%s: got %v\nwant %v", names.Source, got, c.want)
				}
				if st.Dropped != c.dropped || st.BadLines != 0 {
					t.Errorf("%s: dropped %d, bad lines %d; want %d, 0", names.Source, st.Dropped, st.BadLines, c.dropped)
				}
			}
		})
	}
}

// TestDCGMBlankDropped: GPU 1's "not supported" power (DCGM_INT64_BLANK+2) is dropped and
// counted, not read as 9.2e18 W.
func TestDCGMBlankDropped(t *testing.T) {
	got, st, err := parse(strings.NewReader(readFixture(t, "dcgm.prom")), expfmt.FmtText, DCGM)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		`DCGM_FI_DEV_POWER_USAGE{gpu="0"}`: 250.5, `DCGM_FI_DEV_GPU_UTIL{gpu="0"}`: 97,
		`DCGM_FI_DEV_GPU_UTIL{gpu="1"}`: 40, `DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0"}`: 3e9,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || st.Dropped != 1 {
		t.Errorf("got %v (dropped %d)\nwant %v (dropped 1)", got, st.Dropped, want)
	}
}

// TestMalformedLinesKeepTheRest: a page with bad lines in the middle and at the end keeps
// every good series and counts the bad lines.
func TestMalformedLinesKeepTheRest(t *testing.T) {
	page := readFixture(t, "vllm-v1.prom")
	lines := strings.SplitAfter(page, "\n")
	bad := []string{"vllm:num_requests_running{engine=\"0\" 5.0\n", "this is no metric line\n"}
	broken := strings.Join(lines[:5], "") + bad[0] + strings.Join(lines[5:], "") + bad[1] + "vllm:oops{"
	got, st, err := parse(strings.NewReader(broken), expfmt.FmtText, VLLM)
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := parse(strings.NewReader(page), expfmt.FmtText, VLLM)
	if fmt.Sprint(got) != fmt.Sprint(want) || st.BadLines != 3 {
		t.Errorf("got %v (%d bad lines)\nwant %v (3)", got, st.BadLines, want)
	}
	if _, _, err := parse(strings.NewReader("<html>\nnot metrics\n</html>\n"), expfmt.FmtText, VLLM); err == nil {
		t.Error("a page of nothing but bad lines parsed")
	}
}
