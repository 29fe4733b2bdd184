package runner

import (
	"fmt"
	"io"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/gen"
	"github.com/llm-replay/replay/ingest"

	// Registers the request-log reader with ingest: Config.Ingest reads every format,
	// openai-log included, whoever calls Run.
	_ "github.com/llm-replay/replay/gatewaylog"
	_ "github.com/llm-replay/replay/otlp"
	_ "github.com/llm-replay/replay/requestlog"
	"github.com/llm-replay/replay/trace"
)

// DefaultWorkload names the trace replayed when none is given, in messages and summary.json.
const DefaultWorkload = "replay gen (mixed, 2m, 3 req/s, seed 1)"

// defaultWindow is readWindow for the default workload: gen.Default() made in memory, then the
// same window and limit a file would get.
func defaultWindow(cfg Config) ([]trace.Record, error) {
	all, err := gen.Records(gen.Default())
	if err != nil {
		return nil, fmt.Errorf("generating the default workload: %w", err)
	}
	recs := all[:0]
	from, to := cfg.Schedule.From, cfg.Schedule.To
	for _, rec := range all {
		if rec.Timestamp < from || (to > 0 && rec.Timestamp >= to) {
			continue
		}
		recs = append(recs, rec)
		if cfg.Limit > 0 && len(recs) >= cfg.Limit {
			break
		}
	}
	return recs, nil
}

// inputCounts is what the log gave, for the verdict's --max-skip: every line read is a
// record, a rejected bad line or a skipped record that is no model request.
func inputCounts(c ingest.Counts) *analysis.Input {
	return &analysis.Input{Lines: c.Records + c.Rejected + c.Skipped, Records: c.Records, Rejected: c.Rejected, NotRequests: c.Skipped,
		ImagesSizeInferred: c.ImagesSizeInferred}
}

// readWindow reads the trace's records inside the scheduler's From/To window and Limit, so
// that prompts are built only for what will be sent. The scheduler re-bases the window itself.
// A request log is counted with the run's tokenizer, tokPath.
func readWindow(path, tokPath string, cfg Config) ([]trace.Record, *analysis.Input, error) {
	opts := cfg.Ingest
	opts.Tokenizer = tokPath
	rd, err := ingest.Open(path, opts)
	if err != nil {
		return nil, nil, err
	}
	defer rd.Close()
	var recs []trace.Record
	from, to := cfg.Schedule.From, cfg.Schedule.To
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if rec.Timestamp < from || (to > 0 && rec.Timestamp >= to) {
			continue
		}
		recs = append(recs, rec)
		if cfg.Limit > 0 && len(recs) >= cfg.Limit {
			break
		}
	}
	c := rd.Counts()
	if cfg.DryRun { // what each file of a log of several gave (nothing for one file)
		ingest.WriteFileCounts(cfg.Stderr, c)
	}
	if c.Rejected > 0 {
		fmt.Fprintf(cfg.Stderr, "replay: %s: %d rows rejected (--on-error skip)\n", path, c.Rejected)
	}
	if c.Skipped > 0 {
		fmt.Fprintf(cfg.Stderr, "replay: %s: %d records skipped: no model request (tool or MCP calls, health checks)\n", path, c.Skipped)
	}
	if c.CachedUnplaced > 0 {
		fmt.Fprintf(cfg.Stderr, "replay: %s: %d records log cached prompt tokens that no earlier request of their session could have left in the cache (it was warm before the log began); they replay uncached, so the measured hit rate falls short of the logged one by that much\n", path, c.CachedUnplaced)
	}
	sayImageRules(cfg.Stderr, path, c.ImageRules)
	if cfg.Ingest.LoggedModel != "" && c.Images > 0 && len(c.ImageRules) == 0 {
		// A gateway's or cloud's log (Bedrock, Vertex) names its provider's model, by whose
		// documented rule its images were counted; --logged-model is a request log's.
		fmt.Fprintf(cfg.Stderr, "replay: %s: --logged-model is not used: this log's %d images were counted by the provider's rule its records name (--logged-model is for request logs, --format openai-log)\n", path, c.Images)
	}
	if c.ImagesSizeInferred > 0 {
		fmt.Fprintf(cfg.Stderr, "replay: %s: %d images logged by URL alone were sized from the prompt tokens their line's text does not explain, as the squarest image the logged rule counts that much (--image-size WxH gives them one size); summary.json's input counts them\n", path, c.ImagesSizeInferred)
	}
	if c.OutputUnknown > 0 {
		fmt.Fprintf(cfg.Stderr, "replay: %s: %d records have no logged output count (vLLM logs outputs only with --enable-log-outputs): their output tokens are 0 in the trace, not what production generated\n", path, c.OutputUnknown)
	}
	return recs, inputCounts(c), nil
}
