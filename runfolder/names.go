package runfolder

import (
	"strconv"
	"strings"
)

// A run's files, each written by the package that owns its format.
const (
	// Requests is every row of the run as it finished (rowfile's Parquet file).
	Requests = "requests.parquet"
	// Journal is the crash journal beside Requests while the run goes (rowfile.JournalPath).
	Journal = "requests.journal"
	// Sends marks each measured request as it leaves (runner's send log): what a killed run
	// sent, so --resume tells the requests lost at the kill from those never sent. Removed
	// when a run sent and finished its whole schedule.
	Sends = "requests.sends"
	// BeforeResume holds a resumed run's earlier rows while they are copied into the new
	// requests.parquet; removed once the resumed run closes.
	BeforeResume = "requests.before-resume.parquet"
	// RunConfig is the run's settings, every flag by name (replay run --config repeats it,
	// --resume goes on from a kill with it).
	RunConfig = "run.yaml"
	// Summary and Report are written once at the end, from the rows (analysis).
	Summary = "summary.json"
	Report  = "report.html"
	// ServerMetrics is the endpoint's /metrics scrapes as they came (results' line format).
	ServerMetrics = "server_metrics.jsonl"
	// GPUMetrics is the first GPU exporter's scrapes; GPUMetricsOf names the others and
	// GPUMetricsGlob matches them all.
	GPUMetrics     = "gpu_metrics.jsonl"
	GPUMetricsGlob = "gpu_metrics*.jsonl"
	// Calibration is a calibration's fit (`replay calibrate`, or the one a run was given,
	// kept in its folder), CalibrationReport its page.
	Calibration       = "calibration.json"
	CalibrationReport = "calibration.html"
	// Queueing is each request's TTFT split into predicted prefill and queueing.
	Queueing = "queueing.csv"
	// Shard is a shard's identity, written before its first request; Shards is a merged
	// run's account of its shards.
	Shard  = "shard.json"
	Shards = "shards.json"
)

// The studies' files, in the folder of the study (each of its runs in a folder below it).
const (
	Compare          = "compare.json"
	CompareReport    = "compare.html"
	Sweep            = "sweep.json"
	SweepReport      = "sweep.html"
	Trend            = "trend.json"
	TrendReport      = "trend.html"
	CacheStudy       = "cache_study.json"
	CacheStudyReport = "cache_study.html"
)

// gpuMetricsStem and gpuMetricsExt are GPUMetrics' parts, between which GPUMetricsOf puts
// the exporter's number.
const (
	gpuMetricsStem = "gpu_metrics"
	gpuMetricsExt  = ".jsonl"
)

// GPUMetricsOf is the file of the i-th GPU exporter of a run (from 0): GPUMetrics for the
// first, gpu_metrics-2.jsonl, gpu_metrics-3.jsonl... for the others.
func GPUMetricsOf(i int) string {
	if i == 0 {
		return GPUMetrics
	}
	return gpuMetricsStem + "-" + strconv.Itoa(i+1) + gpuMetricsExt
}

// GPUMetricsIndex is the exporter a file name (GPUMetricsOf's) is of; ok is false for any
// other name.
func GPUMetricsIndex(name string) (i int, ok bool) {
	if name == GPUMetrics {
		return 0, true
	}
	rest, ok := strings.CutPrefix(name, gpuMetricsStem+"-")
	if !ok {
		return 0, false
	}
	rest, ok = strings.CutSuffix(rest, gpuMetricsExt)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 2 || strconv.Itoa(n) != rest {
		return 0, false
	}
	return n - 1, true
}
