package runner

import (
	"fmt"
	"io"

	"github.com/llm-replay/replay/accesslog"
	"github.com/llm-replay/replay/trace"
)

// readWindow reads the trace's records inside the scheduler's From/To window and Limit, so
// that prompts are built only for what will be sent. The scheduler re-bases the window itself.
func readWindow(path, tokPath string, cfg Config) ([]trace.Record, error) {
	rd, err := accesslog.OpenRecords(path, tokPath, cfg.Ingest)
	if err != nil {
		return nil, err
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
			return nil, err
		}
		if rec.Timestamp < from || (to > 0 && rec.Timestamp >= to) {
			continue
		}
		recs = append(recs, rec)
		if cfg.Limit > 0 && len(recs) >= cfg.Limit {
			break
		}
	}
	if n := rd.Rejected(); n > 0 {
		fmt.Fprintf(cfg.Stderr, "replay: %s: %d rows rejected (--on-error skip)\n", path, n)
	}
	return recs, nil
}
