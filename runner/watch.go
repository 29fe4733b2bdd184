package runner

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/llm-replay/replay/live"
	"github.com/llm-replay/replay/runfolder"
	"github.com/llm-replay/replay/scrape"
)

// serveLive serves every leg's live series on one page at --metrics-listen (a paired run's
// told apart by their endpoint label); stop keeps it up until the final figures were read
// (MetricsLinger) once every sink has closed. Without --metrics-listen stop does nothing.
func serveLive(ctx context.Context, cfg Config, legs []*leg) (stop func() error, err error) {
	if cfg.MetricsListen == "" {
		return func() error { return nil }, nil
	}
	ms := make([]*live.Metrics, len(legs))
	for i, l := range legs {
		ms[i] = l.live
	}
	addr, stop, err := live.Serve(ctx, cfg.MetricsListen, cfg.MetricsLinger, ms...)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Stderr, "replay: serving this run's metrics at http://%s/metrics\n", addr)
	return stop, nil
}

// watch starts the leg's scrapers once the warmup is over (so the server-side hit rate covers
// the measured requests only): the engine's page into server_metrics.jsonl and the GPU
// exporters' pages beside it, each polled with the run's own scrape client (its TLS settings,
// and the API key for the engine's page under the endpoint). On an error none is left running.
func (l *leg) watch(ctx context.Context) error {
	cfg := l.cfg
	if l.tg.metricsURL != "" {
		scr, err := scrape.Start(ctx, scrape.Config{URL: l.tg.metricsURL, Interval: cfg.MetricsInterval,
			Path: filepath.Join(cfg.Out, runfolder.ServerMetrics), Warn: cfg.Stderr,
			Names: l.tg.eng.names(), Client: l.tg.eng.scrapeClient(cfg, true)})
		if err != nil {
			return l.named(err)
		}
		l.scr = scr
	}
	gpus, err := l.tg.eng.startGPUs(ctx, cfg)
	if err != nil {
		l.unwatch()
		return l.named(err)
	}
	l.gpus = gpus
	return nil
}

// unwatch stops the leg's scrapers and hands what they saw to its summary and report.
func (l *leg) unwatch() {
	l.tg.eng.stopGPUs(l.gpus)
	l.gpus = nil
	l.tg.eng.addGPUSeries(l.o.metrics) // report.html plots them beside the engine's series
	if l.scr == nil {
		return
	}
	res := l.scr.Stop()
	l.scr = nil
	l.o.server = serverCache(res)
	l.o.metrics.AddServerSamples(res.Samples)
	if res.WriteError != nil {
		fmt.Fprintf(l.cfg.Stderr, "replay: server metrics: %v (the summary still has them)\n", res.WriteError)
	}
	l.o.wroteMetrics = res.Scrapes > 0 && res.WriteError == nil
}
