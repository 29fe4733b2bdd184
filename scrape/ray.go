package scrape

import "strings"

// withRay adds to vLLM's table the names Ray Serve's vLLM deployments serve the same series
// under, after vLLM's own. Ray's metrics agent prefixes every name with ray_; vLLM's
// RayPrometheusStatLogger (vllm/v1/metrics/ray_wrappers.py, vllm-project/vllm
// 63c2b7abcd705edb754604f83ac72a4269c05a52) replaces the colon with an underscore for
// OpenTelemetry (ray_vllm_num_requests_running), where older releases kept it
// (ray_vllm:num_requests_running). Both are read; the labels (WorkerId, ReplicaId, ...) are
// summed over like vLLM's engine label.
func withRay(n Names) Names {
	for i, s := range n.Series {
		own := len(s.From)
		from := append([]string(nil), s.From...)
		for _, name := range s.From[:own] {
			rest, ok := strings.CutPrefix(name, "vllm:")
			if !ok {
				continue
			}
			from = append(from, "ray_vllm:"+rest, "ray_vllm_"+rest)
		}
		n.Series[i].From = from
	}
	return n
}
