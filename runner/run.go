package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/sim"
	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/telemetry"
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

	// Client is how to talk to the endpoint: Client.BaseURL is the server's base URL ("" starts
	// the built-in simulator in-process), Client.Model is sent in every request ("" means
	// "replay-sim" against the simulator), Client.API is the API of records that name none
	// (trace.APIs; "completions" by default): a request log's records go to their own.
	// A paired run's endpoints override BaseURL, Model and APIKey (Endpoints); the rest is
	// passed to client.New as given, ExtraBody joined by the engine's forcing fields.
	Client client.Config
	// Tokenizer is a tokenizer.json or its folder; "" uses the embedded sample tokenizer, which
	// is refused against a real endpoint.
	Tokenizer string
	// Retries is how many times a request that got 429, 5xx or no connection is tried again
	// (0, the default, is open loop: no retries), after the server's Retry-After or an
	// exponential backoff. Every attempt has its row.
	Retries int
	// APIOverride sends every record to Client.API, whatever API it was logged against (its
	// logged options of another API's shape are then sent as they are: the user asked).
	APIOverride bool
	// SendIDs sends completions prompts as token ids (vLLM accepts them) instead of text.
	SendIDs bool
	// Options is OptionsLogged (each request with its own logged options: sampling, stop,
	// tools, response_format, n, stream; forced to its length only where it ran to it;
	// cancelled where its client cancelled it) or OptionsNone; "" is logged when the trace's
	// records carry options, else none.
	Options string
	// Body BodyVerbatim sends each record's logged body byte for byte, "model" replaced
	// (traces kept with --keep-text); the lengths are then the engine's own.
	Body string

	Schedule scheduler.Config
	// Limit keeps the first Limit records of the window (applied before synthesis, so a short
	// run of a long trace does not build every prompt).
	Limit int
	// Warmup sends this many throwaway requests of the trace's own shape first.
	Warmup int
	// MediaListen (--media-listen HOST:PORT) serves the stand-ins of images logged as URLs
	// there, and sends those images as URLs the engine fetches (mediaserver.go); "" inlines
	// every image as a data URL.
	MediaListen string
	// Probe is ProbeAuto ("" too: against an endpoint, each distinct image size of the window
	// is measured before the prompts are built, imageprobe.go) or ProbeNone.
	Probe string

	Synth synth.Config
	// UniquePrefixes gives every request its own blocks (no shared prefixes), the control arm
	// of a prefix-caching study.
	UniquePrefixes bool

	// MetricsURL is the endpoint's Prometheus page, scraped during the run for the server's
	// prefix-cache counters and queue gauges with the engine's own metric names: "" means the
	// engine's page under the endpoint (engine.MetricsURL: /metrics, TensorRT-LLM's
	// /prometheus/metrics, none for Ollama; the simulator's own page when simulated), "none"
	// turns scraping off.
	MetricsURL string
	// MetricsInterval is the time between scrapes; 0 means one second.
	MetricsInterval time.Duration

	// The serving engine (engine.go). Engine is --engine: "" or auto detects it from the
	// endpoint, or an engine name (vllm, sglang, tgi, trtllm, llamacpp, ollama, openai,
	// generic); it picks the fields that force output lengths, the default MetricsURL (where
	// that engine serves its page, "" for none) and its metric names. ResetCache resets the
	// engine's prefix cache before the measured run. GPUMetricsURLs are GPU exporters' pages
	// (DCGM's names) scraped beside MetricsURL into gpu_metrics.jsonl, gpu_metrics-2.jsonl...;
	// a paired run scrapes them into each endpoint's folder, its energy per output token then
	// every exporter's GPUs against that endpoint's tokens.
	Engine         string
	ResetCache     bool
	GPUMetricsURLs []string

	// SLO judges goodput (analysis.ParseSLO reads the text form); zero for none.
	SLO          analysis.SLO
	MaxErrorRate float64
	// MaxLateness is the send lateness p99 above which the run is client-bound; 0 or negative
	// turns the check off (replay run's --max-lateness gives analysis.DefaultMaxLateness).
	MaxLateness time.Duration
	// MinExact is the least share of requests whose prompt tokens the endpoint must count as
	// logged (exit 6 below it); MaxSkip the largest share of the log's lines that may be
	// rejected as bad (exit 7 past it). Nil: analysis.DefaultMinExact, DefaultMaxSkip.
	MinExact, MaxSkip *float64
	// ClientLimit caps requests in flight at what this machine can hold; 0 means derived from
	// its open-file limit and ephemeral ports (client.InFlightLimit), negative means none.
	ClientLimit int
	// Preconnect is how many connections to open before the first measured send:
	// PreconnectAuto for the default (preconnectCount), 0 for none.
	Preconnect  int
	KeepPrompts bool
	// PlanMemory is the prompt memory, in bytes, a run may hold before its first send: a
	// window that needs more builds its prompts as the run goes, at most this much ahead of
	// their sends (stream_plan.go). 0: the default (1 GiB, or an eighth of the machine's
	// memory when less); negative: always build before the run.
	PlanMemory int64
	// Memory is the process's memory budget, in bytes, while the schedule runs: garbage
	// collection waits until the process nears it, and a run whose state before the first
	// send leaves too little of it stops there with an error. 0: the default
	// (defaultMemory, or half the machine's memory when less); negative: no budget, the
	// collector held at what is in use plus 1 GiB (gchold).
	Memory      int64
	CostPerHour float64
	GPUs        int
	// Calibration (replay calibrate's calibration.json, --calibration) splits each TTFT into the
	// predicted prefill of one request alone and queueing: summary.json's "queueing", a plot
	// in report.html and queueing.csv per request. Nil for none.
	Calibration *analysis.Calibration

	// MetricsListen, when set, serves replay's own Prometheus metrics there during the run (a
	// paired run's endpoints on one page, each under its label); at its end the page stays up
	// until a scrape has read the final figures, at most MetricsLinger.
	MetricsListen string
	MetricsLinger time.Duration
	// SnapshotEvery refreshes summary.json and report.html, marked partial, this often while
	// the run goes: 0 means every 5 minutes, negative never.
	SnapshotEvery time.Duration

	// Telemetry is the requests' trace context and their spans' export (telemetry.go).
	Telemetry Telemetry

	// Progress is how progress is shown on Stderr: ProgressAuto (""), ProgressPlain or
	// ProgressJSON (one JSON object a line, for CI logs and other tools).
	Progress string

	// Routing is where each request goes and how it is told apart (routed.go).
	Routing Routing

	// Sim configures the in-process simulator when Client.BaseURL is "".
	Sim sim.Config

	// Endpoints, two or more, make a paired run (multi.go): every request goes to each at its
	// scheduled time, built once; Out/LABEL/ holds each one's files (the comparison of the
	// first with each other, compare.json and compare.html beside them, is package compare's).
	// Client.BaseURL, Model and APIKey are then unused.
	Endpoints []Endpoint

	// Checks is the behaviour checks' level (checks.go: auto, none, basic, all; "" is none):
	// their probes go to each endpoint before the warmup, the overload check judges the run's
	// answers.
	Checks string
	// TokenizeCheck is the tokenize cross-check (tokenize.go: auto, none, on; "" is none):
	// after the measured run, the endpoint's own token count of each sent prompt (an evenly
	// spaced sample of at most tokcheck.MaxSample) against replay's.
	TokenizeCheck string
	// OnPlan and OnStart let a study that drives the run (study.go) see it before it sends:
	// OnPlan the plan once its prompts are built, before anything is asked of the endpoint;
	// OnStart each endpoint once it is up, before the checks, the warmup and the first request.
	// An error from either ends the run there. Nil for none.
	OnPlan  func(Plan) error
	OnStart func(context.Context, Target) error
	// DryRun does everything before the first send (the trace's window, the tokenizer, the
	// prompts, each endpoint's preflight, engine and forcing probe, the behaviour checks),
	// then writes what would be sent to Stdout and returns (nil, nil): no request of the run is
	// sent and no run file is written.
	DryRun bool
	// Resume goes on from the killed or stopped run in Out (resume.go): its rows are kept
	// once, the requests it sent that never finished are counted lost at the kill, and the
	// requests it never sent are sent from where the schedule stopped. The settings must be
	// the killed run's (cmd/replay reads them from its run.yaml). A single run's only.
	Resume bool
}

// ErrTooManyFailures is returned (wrapped) when the run completed but more than MaxErrorRate
// of its requests failed.
var ErrTooManyFailures = errors.New("too many failed requests")

// DefaultSnapshotEvery is how often a running replay refreshes its partial summary.
const DefaultSnapshotEvery = 5 * time.Minute

// ErrClientBound is returned (wrapped) when the run completed but its figures measure the
// load generator: its send lateness p99 exceeded MaxLateness, or requests failed on the
// client's own limits. Everything is written first.
var ErrClientBound = errors.New("client-bound")

// ErrInterrupted is returned (wrapped) when the run was stopped by its context (SIGINT or
// SIGTERM) after writing the rows, summary and report of what had finished.
var ErrInterrupted = errors.New("interrupted")

// ErrLengths is returned (wrapped) when the run completed but the endpoint did not see the
// logged prompt lengths: prompt exactness by its usage under MinExact.
var ErrLengths = errors.New("lengths not as logged")

// ErrSkipped is returned (wrapped) when the run completed but more than MaxSkip of the log's
// lines were rejected as bad.
var ErrSkipped = errors.New("too much of the log skipped")

// Run replays the trace and writes requests.parquet, summary.json and report.html into cfg.Out,
// and server_metrics.jsonl when the endpoint's Prometheus page could be scraped.
// Request failures are results, not errors; errors are bad input, setup failures and, wrapped
// in ErrTooManyFailures, a failure rate over cfg.MaxErrorRate. It returns the first
// endpoint's summary (RunEndpoints gives every endpoint's).
func Run(ctx context.Context, cfg Config) (*analysis.Summary, error) {
	res, err := RunEndpoints(ctx, cfg)
	if res == nil || err != nil {
		return res.Summary(), err
	}
	return res.Summary(), res.Err()
}

// RunEndpoints is Run with each endpoint's outcome. A run is four steps: prepare (window,
// prompts, warmup), start the target (endpoint or simulator), execute (send on schedule, rows
// to disk as they finish), finish (summary, report, verdict). With two or more cfg.Endpoints
// it is a paired run: the same requests, built once (the same prompt bytes for each), sent to
// every endpoint at each request's scheduled time by one scheduler, each endpoint's files in
// Out/LABEL/ as a single run's are in Out. A single run is the one-endpoint case of the same
// path (leg.go).
//
// The error is what kept the files from being written (then the Result is nil), or what
// stopped a plan built as the run went (the rows before it written and summarised); each
// endpoint's verdict is its EndpointResult.Err, the run's Result.Err.
func RunEndpoints(ctx context.Context, cfg Config) (*Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	eps, err := runEndpoints(cfg)
	if err != nil {
		return nil, err
	}
	if err := checkResumable(cfg); err != nil {
		return nil, err
	}
	served, err := preflight(ctx, cfg, eps)
	if err != nil {
		return nil, err
	}
	pcfg := cfg // prepared as for the first endpoint: a real one's tokenizer must be the served model's
	pcfg.Client.BaseURL, pcfg.Client.Model, pcfg.Client.APIKey = eps[0].URL, eps[0].Model, eps[0].APIKey
	if pcfg.Tokenizer, err = resolveTokenizer(ctx, pcfg, firstServed(served)); err != nil {
		return nil, err
	}
	p, err := prepare(ctx, pcfg, true)
	if err != nil {
		return nil, err
	}
	defer p.media.stop(cfg.Stderr)
	if cfg.Resume {
		if p.resume, err = loadResume(cfg, p); err != nil {
			return nil, err
		}
		p.warm = nil // the killed run's warmup is in its rows; the server is as it left it
	}
	if err := onPlan(cfg, p); err != nil {
		return nil, err
	}
	if err := fitsMemory(cfg, p); err != nil {
		return nil, err
	}
	legs, err := startLegs(ctx, cfg, p, eps)
	defer stopLegs(legs)
	if err != nil {
		return nil, err
	}
	noteTokenizers(cfg, p, legs, served)
	if err := onStart(ctx, cfg, legs); err != nil {
		return nil, err
	}
	if err := probeLegs(ctx, legs); err != nil {
		return nil, err
	}
	if cfg.DryRun {
		return nil, dryRun(cfg, p, legs)
	}
	if err := execute(ctx, cfg, p, legs); err != nil {
		return nil, err
	}
	res, err := finishLegs(cfg, p, legs)
	if b := legs[0].o.buildErr; b != nil { // what stopped the run, not that it stopped
		return res, b
	}
	return res, err
}

// withDefaults checks cfg (Validate), fills the documented defaults and creates the output
// folder.
func (cfg Config) withDefaults() (Config, error) {
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.Client.API == "" {
		cfg.Client.API = client.APICompletions
	}
	if cfg.Telemetry.RunID == "" {
		cfg.Telemetry.RunID = telemetry.NewRunID()
	}
	if cfg.SnapshotEvery == 0 {
		cfg.SnapshotEvery = DefaultSnapshotEvery
	}
	if cfg.Progress == "" {
		cfg.Progress = ProgressAuto
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return cfg, fmt.Errorf("creating --out: %w", err)
	}
	return cfg, nil
}
