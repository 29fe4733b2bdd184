package scrape

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"

	"github.com/llm-replay/replay/results"
)

// TestParseLlamaCppB11669 reads the page llama.cpp's server b11669 served here (testdata's
// header says how it was captured): its prompt_tokens_total leaves out the 90 cached tokens,
// so the tokens queried are 248 + 90 and the hits 90, a 26.6% hit rate.
func TestParseLlamaCppB11669(t *testing.T) {
	page, err := os.ReadFile("testdata/llamacpp-b11669.metrics")
	if err != nil {
		t.Fatal(err)
	}
	got, stats, err := parse(strings.NewReader(string(page)), expfmt.FmtText, LlamaCpp)
	if err != nil {
		t.Fatal(err)
	}
	if stats.BadLines != 0 || stats.Dropped != 0 {
		t.Fatalf("the real page read with %d bad lines and %d dropped values, want none", stats.BadLines, stats.Dropped)
	}
	want := map[string]float64{
		results.PrefixCacheQueriedTokens: 338, results.PrefixCacheHitTokens: 90,
		results.RequestsRunning: 4, results.RequestsWaiting: 2,
		results.GenerationTokens: 31, DecodeCalls: 205,
		results.GenerationThroughput: 0, results.PromptThroughput: 730.649,
		results.SpecDraftTokens: 0, results.SpecAcceptedTokens: 0,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("parsed\n%v\nwant\n%v", got, want)
	}
	// Any, for an endpoint of unknown make, cannot tell llama.cpp's uncached prompt tokens
	// from other engines' queried ones, so it reads no queries (the hit rate is n/a) rather
	// than a wrong count.
	viaAny, _, err := parse(strings.NewReader(string(page)), expfmt.FmtText, Any)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := viaAny[results.PrefixCacheQueriedTokens]; ok {
		t.Fatalf("Any read queries from a llama.cpp page: %v", viaAny)
	}
}

// TestLlamaCppQueriesNeedBothParts: a page with only one of the two prompt counters (builds
// before prompt_tokens_cached_total, whose prompt_tokens_total also left cached tokens out)
// gives no queried tokens, not the processed ones alone.
func TestLlamaCppQueriesNeedBothParts(t *testing.T) {
	page := "# TYPE llamacpp:prompt_tokens_total counter\nllamacpp:prompt_tokens_total 100\n"
	got, _, err := parse(strings.NewReader(page), expfmt.FmtText, LlamaCpp)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got[results.PrefixCacheQueriedTokens]; ok || len(got) != 0 {
		t.Fatalf("parsed %v from one part", got)
	}
	if !LlamaCpp.isCounter(results.PrefixCacheQueriedTokens) {
		t.Fatal("the queried tokens are not kept as a counter")
	}
}
