package scrape

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/llm-replay/replay/results"
)

// parse reads one metrics page in the format its Content-Type names (Prometheus text,
// OpenMetrics or delimited protobuf) and returns the kept series present on it, each summed over
// its label sets (averaged for the usage gauges). Families of other names are skipped.
func parse(r io.Reader, format expfmt.Format) (map[string]float64, error) {
	dec := expfmt.NewDecoder(r, format)
	sums := map[string]float64{}
	counts := map[string]int{}
	for {
		var mf dto.MetricFamily
		err := dec.Decode(&mf)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("parsing metrics: %w", err)
		}
		name, ok := keptName(&mf)
		if !ok {
			continue
		}
		for _, m := range mf.GetMetric() {
			v, ok := value(m)
			if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			sums[name] += v
			counts[name]++
		}
	}
	for name, n := range counts {
		if averaged[name] && n > 1 {
			sums[name] /= float64(n)
		}
	}
	if _, ok := sums[results.KVCacheUsage]; !ok {
		if v, ok := sums[gpuCacheUsage]; ok {
			sums[results.KVCacheUsage] = v
		}
	}
	delete(sums, gpuCacheUsage)
	return sums, nil
}

// keptName maps a family to the kept name it carries. The Prometheus text format names a
// counter family with its _total suffix (as vLLM's Python client writes it); OpenMetrics names
// it without, so both spellings are accepted for counters.
func keptName(mf *dto.MetricFamily) (string, bool) {
	name := mf.GetName()
	if name == gpuCacheUsage {
		return name, true
	}
	for _, k := range Names {
		if name == k {
			return k, true
		}
		if mf.GetType() == dto.MetricType_COUNTER && !strings.HasSuffix(name, "_total") && name+"_total" == k {
			return k, true
		}
	}
	return "", false
}

// value is a counter's, gauge's or untyped metric's value; histograms and summaries have none.
func value(m *dto.Metric) (float64, bool) {
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue(), true
	case m.Gauge != nil:
		return m.Gauge.GetValue(), true
	case m.Untyped != nil:
		return m.Untyped.GetValue(), true
	}
	return 0, false
}
