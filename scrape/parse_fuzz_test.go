package scrape

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
)

// FuzzParse: no metrics page, however broken, panics the parser or yields a non-finite value
// (which would break the JSON lines).
func FuzzParse(f *testing.F) {
	f.Add(fmt.Sprintf(vllmPage, 1, 2), false)
	f.Add("# TYPE vllm:prefix_cache_hits counter\nvllm:prefix_cache_hits_total 7\n# EOF\n", true)
	f.Add("vllm:num_requests_running NaN\nvllm:kv_cache_usage_perc +Inf\n", false)
	f.Fuzz(func(t *testing.T, page string, openMetrics bool) {
		format := expfmt.FmtText
		if openMetrics {
			format = expfmt.FmtOpenMetrics_1_0_0
		}
		vals, _, err := parse(strings.NewReader(page), format, Any)
		if err != nil {
			return
		}
		for k, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s = %v", k, v)
			}
		}
	})
}
