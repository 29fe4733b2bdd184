package shard

import (
	"fmt"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/scheduler"
)

// base is the folder whose summary gives the merged run's metadata (endpoint, model, speed,
// SLO, limits): the lowest K that wrote one. Nil when none did (every shard was cut).
func base(fs []*Folder) *Folder {
	for _, f := range fs {
		if f.summary != nil {
			return f
		}
	}
	return nil
}

// options are the aggregation's options, from the base shard's summary: the merged figures
// are judged by the SLO and speed the shards ran with.
func options(fs []*Folder) (analysis.Options, error) {
	b := base(fs)
	if b == nil {
		return analysis.Options{}, nil
	}
	s := b.summary
	o := analysis.Options{Speed: s.Run.Speed, Calibration: calibration(fs)}
	if s.Cost != nil {
		o.CostPerHour, o.GPUs = s.Cost.PerGPUHour, s.Cost.GPUs
	}
	var err error
	if o.SLO, err = analysis.ParseSLO(s.Run.SLO); err != nil {
		return o, fmt.Errorf("shard: %s: run.slo: %w", b.Folder, err)
	}
	return o, nil
}

// calibration is the one the shards were given: the first that names one (warnings says
// when shards differ in it).
func calibration(fs []*Folder) *analysis.Calibration {
	for _, f := range fs {
		if f.calibration != nil {
			return f.calibration
		}
	}
	return nil
}

// runInfo is the merged run's metadata. What is one figure per shard and has no exact
// combination is left out of the summary and kept per shard in shards.json: the peak in
// flight (the shards' peaks need not coincide), the server's cache counters (every shard
// scraped the same endpoint) and the ideal cache (each shard's was of its share only). The
// client limit is the sum: the fleet could hold that many requests.
func runInfo(fs []*Folder, notSent int64) analysis.RunInfo {
	var info analysis.RunInfo
	if b := base(fs); b != nil {
		info = b.summary.Run
	}
	info.StartedAt = fs[0].info.StartAt.UTC()
	if info.Version == "" {
		info.Version = fs[0].info.Version
	}
	info.Recovered, info.Recovery = false, nil
	info.Partial, info.PartialRows = false, ""
	info.ServerCache, info.IdealCache = nil, nil
	info.MaxInFlight = 0
	info.NotSent = notSent
	info.ClientLimit = 0
	for _, f := range fs {
		if f.summary != nil {
			info.ClientLimit += f.summary.Client.Limit
		}
	}
	info.Stop = stop(fs, info.Stop)
	return info
}

// stop is why the merged run's sending ended: interrupted if any shard was, else stopped by
// --duration if any was, else as the base shard says.
func stop(fs []*Folder, def string) string {
	seen := map[string]bool{}
	for _, f := range fs {
		if f.summary != nil {
			seen[f.summary.Run.Stop] = true
		}
	}
	for _, s := range []scheduler.Stop{scheduler.StopCanceled, scheduler.StopDuration} {
		if seen[string(s)] {
			return string(s)
		}
	}
	return def
}
