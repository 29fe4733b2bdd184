package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/samples"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/scrape"
	"github.com/llm-replay/replay/sim"
	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/synth/tokenizer"
	"github.com/llm-replay/replay/trace"
)

// Config is everything one run needs. The zero value of a field means its documented default.
type Config struct {
	// Trace is the trace file; "" replays the default workload (DefaultWorkload), generated.
	Trace   string
	Ingest  ingest.Options
	Out     string
	Stderr  io.Writer
	Stdout  io.Writer
	Version string

	// Endpoint is the server's base URL; "" starts the built-in simulator in-process.
	Endpoint string
	// Model is sent in every request; "" means "replay-sim" against the simulator.
	Model string
	// API is "completions" (default) or "chat".
	API string
	// Tokenizer is a tokenizer.json or its folder; "" uses the embedded sample tokenizer, which
	// is refused against a real endpoint.
	Tokenizer string
	APIKey    string
	Timeout   time.Duration
	ExtraBody map[string]any
	// SendIDs sends completions prompts as token ids (vLLM accepts them) instead of text.
	SendIDs bool

	Schedule scheduler.Config
	// Limit keeps the first Limit records of the window (applied before synthesis, so a short
	// run of a long trace does not build every prompt).
	Limit int
	// Warmup sends this many throwaway requests of the trace's own shape first.
	Warmup int

	Synth synth.Config
	// UniquePrefixes gives every request its own blocks (no shared prefixes), the control arm
	// of a prefix-caching study.
	UniquePrefixes bool

	// MetricsURL is the endpoint's Prometheus page, scraped during the run for the server's
	// prefix-cache counters and queue gauges: "" means the endpoint's scheme://host/metrics (the
	// simulator's own page when simulated), "none" turns scraping off.
	MetricsURL string
	// MetricsInterval is the time between scrapes; 0 means one second.
	MetricsInterval time.Duration

	SLO          string
	MaxErrorRate float64
	KeepPrompts  bool
	CostPerHour  float64
	GPUs         int

	// Sim configures the in-process simulator when Endpoint is "".
	Sim sim.Config
}

// ErrTooManyFailures is returned (wrapped) when the run completed but more than MaxErrorRate
// of its requests failed.
var ErrTooManyFailures = errors.New("too many failed requests")

// ErrInterrupted is returned (wrapped) when the run was stopped by its context (SIGINT or
// SIGTERM) after writing the rows, summary and report of what had finished.
var ErrInterrupted = errors.New("interrupted")

// Run replays the trace and writes requests.parquet, summary.json and report.html into cfg.Out,
// and server_metrics.jsonl when the endpoint's Prometheus page could be scraped.
// Request failures are results, not errors; errors are bad input, setup failures and, wrapped
// in ErrTooManyFailures, a failure rate over cfg.MaxErrorRate.
func Run(ctx context.Context, cfg Config) (*analysis.Summary, error) {
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.Out == "" {
		return nil, errors.New("--out is required")
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, fmt.Errorf("creating --out: %w", err)
	}
	slo, err := analysis.ParseSLO(cfg.SLO)
	if err != nil {
		return nil, fmt.Errorf("--slo: %w", err)
	}
	tokPath, err := resolveTokenizer(cfg)
	if err != nil {
		return nil, err
	}
	tok, err := tokenizer.Load(tokPath)
	if err != nil {
		return nil, fmt.Errorf("--tokenizer: %w", err)
	}

	tracePath, recs, err := resolveTrace(cfg, tokPath)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no records in the selected window", tracePath)
	}
	if cfg.UniquePrefixes {
		makeUnique(recs)
	}
	scfg := cfg.Synth
	if cfg.API == "" {
		cfg.API = client.APICompletions
	}
	scfg.API = synth.API(cfg.API)
	if err := synth.ApplyTokenizerConfig(tokPath, &scfg); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Stderr, "replay: building %d prompts with %s\n", len(recs), tokPath)
	_, reqs, err := build(ctx, tok, scfg, recs, cfg.SendIDs, cfg.Ingest.OnError == ingest.OnErrorSkip, cfg.Stderr)
	if err != nil {
		return nil, err
	}
	ideal := idealCache(reqs, scfg.BlockSize)
	var warm []synth.Request
	if cfg.Warmup > 0 {
		wcfg := scfg
		wcfg.Seed = scfg.Seed ^ 0x5741524d5550 // "WARMUP": other text, same shapes
		wrecs := make([]trace.Record, 0, cfg.Warmup)
		for i := 0; i < cfg.Warmup && i < len(recs); i++ {
			r := recs[i]
			r.SessionID, r.Turn = "", 0
			wrecs = append(wrecs, r)
		}
		makeUnique(wrecs)
		if _, warm, err = build(ctx, tok, wcfg, wrecs, cfg.SendIDs, true, io.Discard); err != nil {
			return nil, fmt.Errorf("warmup: %w", err)
		}
	}

	endpoint := cfg.Endpoint
	simulated := endpoint == ""
	if simulated {
		sc := cfg.Sim
		if sc.BlockSize == 0 {
			sc = sim.DefaultConfig()
		}
		// Count as `replay sim --tokenizer` does, so in-process and standalone runs agree.
		if err := ServerCounting(tokPath, tok, &sc); err != nil {
			return nil, err
		}
		if cfg.Model == "" {
			cfg.Model = sc.ModelName
		}
		u, stop, err := sim.Listen(context.WithoutCancel(ctx), "127.0.0.1:0", sc)
		if err != nil {
			return nil, fmt.Errorf("starting the built-in simulator: %w", err)
		}
		defer func() { _ = stop() }()
		endpoint = u
		fmt.Fprintf(cfg.Stderr, "replay: no --endpoint given: started the built-in simulator at %s (simulated timings, not a real model)\n", u)
	}
	if cfg.Model == "" {
		return nil, errors.New("--model is required with --endpoint")
	}
	base, err := baseURL(endpoint)
	if err != nil {
		return nil, err
	}
	metricsURL, err := resolveMetricsURL(cfg.MetricsURL, endpoint)
	if err != nil {
		return nil, err
	}
	cl, err := client.New(client.Config{BaseURL: base, API: cfg.API, Model: cfg.Model, APIKey: cfg.APIKey,
		Timeout: cfg.Timeout, ExtraBody: cfg.ExtraBody})
	if err != nil {
		return nil, err
	}

	rpath := filepath.Join(cfg.Out, "requests.parquet")
	w, err := results.NewWriter(rpath)
	if err != nil {
		return nil, err
	}
	metrics := analysis.NewMetrics(analysis.Options{Speed: cfg.Schedule.Speed, SLO: slo, CostPerHour: cfg.CostPerHour, GPUs: cfg.GPUs})
	sink := newSink(w, metrics)

	warmItems := make([]scheduler.Item, 0, len(warm))
	for i := range warm {
		warmItems = append(warmItems, scheduler.Item{Index: i, Timestamp: warm[i].Record.Timestamp, Warmup: true, Payload: &warm[i]})
	}
	items := make([]scheduler.Item, 0, len(reqs))
	var span time.Duration
	for i := range reqs {
		r := &reqs[i]
		items = append(items, scheduler.Item{Index: i, Timestamp: r.Record.Timestamp, SessionID: r.Record.SessionID, Turn: r.Record.Turn, Payload: r})
		span = max(span, r.Record.Timestamp)
	}
	speed := cfg.Schedule.Speed
	if speed <= 0 {
		speed = 1
	}
	counters := &scheduler.Counters{}
	prog := newProgress(len(reqs), time.Duration(float64(span)/speed), counters)
	sched := cfg.Schedule
	sched.Counters = counters
	sched.From, sched.To = 0, 0 // readWindow applied them; the scheduler re-bases to the first record
	label := cfg.Endpoint
	if simulated {
		label = "simulator"
	}
	send := func(ctx context.Context, it scheduler.Item, t scheduler.Timing) {
		r := it.Payload.(*synth.Request)
		creq := client.Request{Prompt: r.Prompt, MaxTokens: r.MaxTokens}
		if cfg.API == client.APIChat {
			creq.Messages = make([]client.Message, len(r.Messages))
			for i, m := range r.Messages {
				creq.Messages[i] = client.Message{Role: m.Role, Content: m.Content}
			}
		} else if cfg.SendIDs {
			creq.PromptIDs = r.PromptIDs
		}
		resp := cl.Do(ctx, creq, t.Clock.Now)
		row := results.Row{
			RequestID:           fmt.Sprintf("%d", r.Index),
			Warmup:              it.Warmup,
			SessionID:           r.Record.SessionID,
			Turn:                int32(r.Record.Turn),
			OriginalTimestampNS: int64(r.Record.Timestamp),
			ScheduledNS:         t.ScheduledNS,
			SentNS:              t.SentNS,
			QueueWaitNS:         t.QueueWaitNS,
			FirstTokenNS:        resp.FirstTokenNS,
			LastTokenNS:         resp.LastTokenNS,
			DoneNS:              resp.DoneNS,
			ChunkNS:             resp.ChunkNS,
			TargetPromptTokens:  int32(r.TargetPromptTokens),
			TargetOutputTokens:  int32(r.MaxTokens),
			PromptTokens:        int32(resp.PromptTokens),
			CompletionTokens:    int32(resp.CompletionTokens),
			CachedTokens:        int32(resp.CachedTokens),
			HTTPStatus:          int32(resp.HTTPStatus),
			ErrorClass:          resp.ErrorClass,
			ErrorMessage:        resp.ErrorMessage,
			Endpoint:            label,
		}
		if it.Warmup {
			row.RequestID = "warmup-" + row.RequestID
		}
		if cfg.KeepPrompts {
			row.Prompt = r.Prompt
		}
		sink.put(row)
		if !it.Warmup && !resp.OK() {
			prog.failed()
		}
	}

	fmt.Fprintf(cfg.Stderr, "replay: open-loop replay of %d requests (%d warmup) at %gx from %s\n", len(reqs), len(warm), speed, tracePath)
	started := time.Now()
	prog.run(cfg.Stderr)
	var runErr error
	if len(warmItems) > 0 {
		// The warmup runs on its own, before the server's counters are first read, so that the
		// server-side hit rate covers the measured requests only.
		wcfg := scheduler.Config{Speed: sched.Speed, MaxConcurrency: sched.MaxConcurrency, Counters: &scheduler.Counters{}}
		_, runErr = scheduler.Run(ctx, warmItems, wcfg, send)
	}
	var scr *scrape.Scraper
	if runErr == nil && metricsURL != "" {
		scr, runErr = scrape.Start(ctx, scrape.Config{URL: metricsURL, Interval: cfg.MetricsInterval,
			Path: filepath.Join(cfg.Out, ServerMetricsFile), Warn: cfg.Stderr})
	}
	var st scheduler.Stats
	if runErr == nil {
		st, runErr = scheduler.Run(ctx, items, sched, send)
	}
	var server *analysis.ServerCache
	wroteMetrics := false
	if scr != nil {
		res := scr.Stop()
		server = serverCache(res)
		metrics.AddServerSamples(res.Samples)
		if res.WriteError != nil {
			fmt.Fprintf(cfg.Stderr, "replay: server metrics: %v (the summary still has them)\n", res.WriteError)
		}
		wroteMetrics = res.Scrapes > 0 && res.WriteError == nil
	}
	prog.finish()
	if cerr := sink.close(); cerr != nil && runErr == nil {
		runErr = cerr
	}
	if runErr != nil {
		return nil, runErr
	}
	info := analysis.RunInfo{Endpoint: label, Model: cfg.Model, API: cfg.API, Trace: tracePath, Speed: speed,
		MaxConcurrency: sched.MaxConcurrency, Seed: int64(scfg.Seed), SLO: cfg.SLO, Simulated: simulated,
		StartedAt: started.UTC(), Version: cfg.Version, NotSent: int64(st.NotSent),
		IdealCache: ideal, ServerCache: server}
	sum := metrics.Summary(info)
	if err := analysis.WriteSummary(cfg.Out, sum); err != nil {
		return nil, err
	}
	if err := writeReport(cfg.Out, metrics, sum); err != nil {
		return nil, err
	}
	if err := analysis.WriteTable(cfg.Stdout, sum); err != nil {
		return nil, err
	}
	wrote := "requests.parquet, summary.json, report.html"
	if wroteMetrics {
		wrote += ", " + ServerMetricsFile
	}
	fmt.Fprintf(cfg.Stderr, "replay: %s: wrote %s (stopped: %s)\n", cfg.Out, wrote, st.Stop)
	if st.Stop == scheduler.StopCanceled {
		return sum, fmt.Errorf("%w: %d requests finished and were written (%d never sent)", ErrInterrupted, sum.Requests.Total, st.NotSent)
	}
	if sum.Requests.Total == 0 {
		return sum, fmt.Errorf("%w: no request was sent", ErrTooManyFailures)
	}
	if rate := float64(sum.Requests.Failed) / float64(sum.Requests.Total); rate > cfg.MaxErrorRate {
		return sum, fmt.Errorf("%w: %d of %d requests failed (%.1f%%, over --max-error-rate %.1f%%)",
			ErrTooManyFailures, sum.Requests.Failed, sum.Requests.Total, 100*rate, 100*cfg.MaxErrorRate)
	}
	return sum, nil
}

func writeReport(dir string, m *analysis.Metrics, s *analysis.Summary) error {
	p := filepath.Join(dir, "report.html")
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	if err := analysis.WriteHTML(f, m, s, analysis.ReportOptions{}); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", p, err)
	}
	return f.Close()
}

// serverCounter counts a completions prompt the way a server does: with the specials its
// tokenizer's post-processor adds (a BOS for Llama and Mistral).
type serverCounter struct{ tok tokenizer.Tokenizer }

func (c serverCounter) Count(text string) int { return len(c.tok.Encode(text, true)) }

// resolveTrace names the trace and reads its window: the --trace file, or without one the
// default workload, generated in memory.
func resolveTrace(cfg Config, tokPath string) (string, []trace.Record, error) {
	if cfg.Trace != "" {
		recs, err := readWindow(cfg.Trace, tokPath, cfg)
		return cfg.Trace, recs, err
	}
	fmt.Fprintf(cfg.Stderr, "replay: no --trace given: replaying the default workload, %s\n", DefaultWorkload)
	recs, err := defaultWindow(cfg)
	return DefaultWorkload, recs, err
}

func resolveTokenizer(cfg Config) (string, error) {
	if cfg.Tokenizer != "" {
		return cfg.Tokenizer, nil
	}
	if cfg.Endpoint != "" {
		return "", errors.New("--tokenizer is required with --endpoint: prompt lengths must be counted by the served model's own tokenizer (give its tokenizer.json or Hugging Face folder)")
	}
	p, err := samples.Extract(samples.Tokenizer, filepath.Join(cfg.Out, ".sample"))
	if err != nil {
		return "", err
	}
	fmt.Fprintf(cfg.Stderr, "replay: no --tokenizer given: counting with the embedded sample tokenizer (Mistral-7B 32k) against the simulator\n")
	return p, nil
}

// baseURL turns --endpoint into the API root the client appends paths to: a bare host gets /v1.
func baseURL(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("--endpoint %q: want a URL such as http://127.0.0.1:8000/v1", endpoint)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1"
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}

// makeUnique gives every record its own block hashes, so no two requests share a prefix.
func makeUnique(recs []trace.Record) {
	var next uint64 = 1 << 62
	for i := range recs {
		hs := make([]uint64, len(recs[i].BlockHashes))
		for j := range hs {
			hs[j] = next
			next++
		}
		recs[i].BlockHashes = hs
	}
}

// build synthesizes every request before the clock starts, so the send path does no tokenizer work.
func build(ctx context.Context, tok tokenizer.Tokenizer, scfg synth.Config, recs []trace.Record, sendIDs, skip bool, stderr io.Writer) (*synth.Builder, []synth.Request, error) {
	b, err := synth.New(tok, scfg)
	if err != nil {
		return nil, nil, err
	}
	if scfg.API == synth.APIChat {
		if recs, err = fitChat(b, recs, skip, stderr); err != nil {
			return nil, nil, err
		}
	}
	out := make([]synth.Request, 0, len(recs))
	i := 0
	next := func() (trace.Record, error) {
		if i == len(recs) {
			return trace.Record{}, io.EOF
		}
		i++
		return recs[i-1], nil
	}
	err = b.Stream(ctx, runtime.GOMAXPROCS(0), next, func(r synth.Request) error {
		if scfg.API == synth.APIChat || !sendIDs {
			r.PromptIDs = nil // not sent: don't hold every prompt twice during the run
		}
		out = append(out, r)
		return nil
	})
	return b, out, err
}

// fitChat handles records too short for the chat API: a chat template adds a fixed number of
// tokens, so a record with fewer prompt tokens than that cannot be replayed as chat. With skip
// they are left out and counted; otherwise the first one is an error that says what to do.
func fitChat(b *synth.Builder, recs []trace.Record, skip bool, stderr io.Writer) ([]trace.Record, error) {
	ov, err := b.ChatOverhead()
	if err != nil {
		return nil, err
	}
	kept := recs[:0:0]
	for _, r := range recs {
		if r.PromptTokens > ov {
			kept = append(kept, r)
			continue
		}
		if !skip {
			return nil, fmt.Errorf("%s:%d: field \"prompt_tokens\": %d tokens, but the chat template alone adds %d: replay it with --api completions, or leave such requests out with --on-error skip",
				r.Source, r.Line, r.PromptTokens, ov)
		}
	}
	if n := len(recs) - len(kept); n > 0 {
		fmt.Fprintf(stderr, "replay: left out %d requests with at most %d prompt tokens, the chat template's own size (--on-error skip)\n", n, ov)
	}
	return kept, nil
}
