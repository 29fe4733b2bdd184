package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/client"
	"github.com/llm-replay/replay/compare"
	"github.com/llm-replay/replay/runner"
	"github.com/llm-replay/replay/sim"
)

// version is stamped into summary.json.
var version = buildVersion()

func init() {
	register(&command{
		name:    "run",
		summary: "Replay a trace against an endpoint (or the built-in simulator), open loop and on time",
		usage:   "[--trace FILE|DIR|GLOB]... [--endpoint URL --model NAME [--tokenizer ORG/NAME|FILE]] [--speed X] [--dry-run] --out DIR",
		example: `  # the default generated workload (replay gen, seed 1) against the built-in simulator
  replay run --speed 4 --out out/

  # against a vLLM server: the model name is enough (its tokenizer is the one vLLM names,
  # from the Hugging Face cache, else the hub); --dry-run checks everything and sends nothing
  replay run --trace mooncake.jsonl --endpoint http://127.0.0.1:8000 --model Qwen/Qwen3-8B --out runs/qwen3
  replay run --dry-run --trace mooncake.jsonl --endpoint http://127.0.0.1:8000 --model Qwen/Qwen3-8B

  # yesterday's traffic at 2x against a vLLM server, with an SLO
  export OPENAI_API_KEY=...    # only if the server wants one
  replay run --trace mooncake.jsonl --endpoint http://127.0.0.1:8000/v1 \
      --model Qwen/Qwen3-8B --tokenizer Qwen/Qwen3-8B --api chat \
      --speed 2 --slo ttft=500ms,itl=60ms --api-key-env OPENAI_API_KEY --out runs/qwen3-2x

  # a gateway's raw request log, counted with the served model's tokenizer and chat template;
  # each request goes to the API it was logged against (chat, completions, responses,
  # messages, embeddings: a line's "path", else its body's shape), with its own options
  replay run --trace gateway.jsonl --format openai-log --tokenizer ~/models/Qwen3-8B --out runs/log

  # before a migration: the same traffic to both endpoints at once, compared request by request
  replay run --trace mooncake.jsonl --endpoint old=http://10.0.0.1:8000/v1 \
      --endpoint new=http://10.0.0.2:8000/v1 --model Qwen/Qwen3-8B --tokenizer ~/models/Qwen3-8B \
      --speed 2 --out runs/migration    # runs/migration/{old,new}/, compare.json, compare.html

  # one shard of 4 in a Slurm job array (sbatch --array=0-3; deploy/slurm) or a Kubernetes
  # Indexed Job (REPLAY_SHARDS=4; deploy/k8s): K and N from the scheduler, every shard
  # scheduled from one instant the submitter chose; replay merge then makes one run of them
  replay run --trace trace.parquet --endpoint http://vllm:8000/v1 --model Qwen/Qwen3-8B \
      --tokenizer ~/models/Qwen3-8B --shard auto --start-at "$REPLAY_START_AT" \
      --out /shared/run1/shard-$SLURM_ARRAY_TASK_ID

  # ... as a CI gate: every endpoint within the SLO, new at most 10% slower at p95 than old,
  # and every behaviour check passed (probed before the warmup; --checks all adds tool calls
  # and json_schema): exit 4 otherwise, after every file is written
  replay run --trace mooncake.jsonl --endpoint old=http://10.0.0.1:8000/v1 \
      --endpoint new=http://10.0.0.2:8000/v1 --model Qwen/Qwen3-8B --tokenizer ~/models/Qwen3-8B \
      --speed 2 --require 'ttft.p95<=500ms,delta.ttft.p95<=+10%,checks' --out runs/migration

  # every request's span to an OpenTelemetry Collector (OTLP/HTTP), joined by its traceparent
  # to the server's spans of it; each row's trace_id names its trace
  replay run --trace mooncake.jsonl --endpoint http://127.0.0.1:8000/v1 --model Qwen/Qwen3-8B \
      --tokenizer ~/models/Qwen3-8B --otlp-endpoint http://127.0.0.1:4318 --out runs/traced`,
		exits:   runExitCodes,
		grouped: true,
		setup:   setupRun,
	})
}

// runFlags are the flags of a replay run (shared by run and sweep): most go straight into
// cfg, the rest are checked and turned into it once parsed (config).
type runFlags struct {
	in          ingestFlags
	cfg         runner.Config
	sc          sim.Config
	seed        uint64
	prefixMode  string
	slo         string      // --slo, parsed into cfg.SLO by config
	targets     targetFlags // --endpoint, --model, --api-key-env (endpoints.go)
	apiKeyFile  string
	extra       string
	maxLateness time.Duration
	shards      shardFlags
	routes      routeFlags
	std         cli // the run's table goes to stdout, its progress and notes to stderr
}

// addRunFlags defines the flags of a replay run and returns the function that turns them into
// a runner.Config once parsed. The groups below define them in the order --help shows.
func addRunFlags(fs *pflag.FlagSet, std cli) func(args []string) (runner.Config, error) {
	f := &runFlags{sc: sim.DefaultConfig(), std: std}
	f.in.add(fs)
	fs.Lookup("trace").Usage = traceUsage("trace or request log to replay (default: a 2-minute replay gen workload, made in memory with seed 1)")
	f.addTarget(fs)
	f.routes.add(fs)
	f.addSchedule(fs)
	f.shards.add(fs)
	f.addPrompts(fs)
	f.addRequests(fs)
	f.addMeasures(fs)
	addTelemetry(fs, &f.cfg.Telemetry)
	f.addSim(fs)
	return withEngineFlags(fs, func(args []string) (runner.Config, error) {
		cfg, err := f.config(args)
		if err == nil { // run.yaml holds the files read, not the folder or glob that named them
			err = f.in.recordFiles(fs)
		}
		return cfg, err
	})
}

// addTarget: what is replayed against, and what it serves.
func (f *runFlags) addTarget(fs *pflag.FlagSet) {
	cfg := &f.cfg
	fs.StringArrayVar(&f.targets.endpoints, "endpoint", nil, endpointUsage)
	fs.StringArrayVar(&f.targets.models, "model", nil, modelUsage)
	fs.StringVar(&cfg.Tokenizer, "tokenizer", "", "the served model's tokenizer: its Hugging Face repo id (ORG/NAME[@REVISION], from the Hugging Face cache, else fetched from the hub into it; HF_TOKEN for gated models, HF_HUB_OFFLINE=1 never fetches), its tokenizer.json or its folder (default with --endpoint: the one the endpoint names for its model, e.g. vLLM's /v1/models root)")
	fs.StringVar(&cfg.Client.API, "api", client.APICompletions, "the API of requests whose trace names none: chat, completions, responses, messages or embeddings (a request log's requests go to the API each was logged against)")
	fs.BoolVar(&cfg.APIOverride, "api-override", false, "send every request to --api, whatever API it was logged against")
	fs.StringVar(&cfg.MediaListen, "media-listen", "", "serve the stand-ins of images logged as URLs at HOST:PORT and send those images as URLs the engine fetches, as it fetched the originals (the fetch in its TTFT); give a host the engine can reach (an empty or 0.0.0.0 host is fetched at this machine's name); without it every image is sent inline as a data URL")
	fs.StringVar(&cfg.Probe, "probe", runner.ProbeAuto, "before building the prompts, measure how the endpoint counts each distinct image size and audio clip (rate, channels, length) of the window (a request with two such parts and its twin with one, max_tokens 1, or against none where the pair is refused; at most 32 of each; no rows): auto (against an endpoint; never the built-in simulator, which counts by the model's rule) or none (nothing is sent but the trace's requests); where the endpoint counts otherwise than the model's rule, the run says so and builds with its counts")
}

// addSchedule: how fast, how much of the trace and where the run's files go.
func (f *runFlags) addSchedule(fs *pflag.FlagSet) {
	cfg := &f.cfg
	fs.Float64Var(&cfg.Schedule.Speed, "speed", 1, "speed factor: 2 sends the trace twice as fast")
	fs.StringVar(&cfg.Out, "out", "", "output folder for requests.parquet, summary.json, report.html (required)")
	intWords(fs, &cfg.Schedule.MaxConcurrency, "max-concurrency", 0, "ceiling on requests in flight; waits are recorded as queue wait (none: no ceiling; 0 means none too)", none(0))
	fs.DurationVar(&cfg.Schedule.From, "from", 0, "start of the trace window, as an offset from the trace's first record (e.g. 10m)")
	durationWords(fs, &cfg.Schedule.To, "to", 0, "end of the trace window, as an offset like --from (none: the trace's end; 0 means none too)", none(time.Duration(0)))
	intWords(fs, &cfg.Limit, "limit", 0, "replay only the first N records of the window (none: all of them; 0 means none too)", none(0))
	durationWords(fs, &cfg.Schedule.Duration, "duration", 0, "stop sending after this much wall time; unsent requests are counted (none: send the whole window; 0 means none too)", none(time.Duration(0)))
	fs.IntVar(&cfg.Warmup, "warmup", 0, "send N throwaway requests of the trace's shape first; left out of the summary")
}

// addPrompts: how the prompts are built, and the SLO they are judged by.
func (f *runFlags) addPrompts(fs *pflag.FlagSet) {
	fs.Uint64Var(&f.seed, "seed", 1, "prompt text seed: the same seed gives byte-identical prompts")
	intWords(fs, &f.cfg.Synth.MaxPromptTokens, "max-prompt-tokens", 0, "cap every prompt at N tokens; capped requests are counted (none: no cap; 0 means none too)", none(0))
	fs.StringVar(&f.prefixMode, "prefix-mode", "trace", "trace: requests share prefixes as the trace's block hashes say; unique: every request gets fresh blocks")
	fs.StringVar(&f.slo, "slo", "", "latency SLO for goodput, e.g. ttft=500ms,itl=60ms,e2e=10s")
}

// addRequests: what every request carries, and when the run counts as failed.
func (f *runFlags) addRequests(fs *pflag.FlagSet) {
	cfg := &f.cfg
	fs.StringArrayVar(&f.targets.keyEnvs, "api-key-env", nil, keyEnvUsage)
	fs.StringVar(&f.apiKeyFile, "api-key-file", "", "file holding the API key")
	durationWords(fs, &cfg.Client.Timeout, "timeout", 0, "whole-request timeout, send to the end of the stream (none: no timeout; 0 means none too)", none(time.Duration(0)))
	durationWords(fs, &cfg.Client.StallTimeout, "stall-timeout", 0, "idle timeout: end a request as timeout when no byte arrives for this long (none: no idle timeout; 0 means none too)", none(time.Duration(0)))
	fs.IntVar(&cfg.Retries, "retries", 0, "try a request that got 429, 5xx or no connection again, up to N times, after the server's Retry-After or a backoff from 250ms; every attempt is a row (0: open loop, no retries)")
	fs.StringVar(&cfg.Client.CAFile, "ca-file", "", "PEM file of a private CA to trust beside the system's, for https endpoints")
	fs.BoolVar(&cfg.Client.Insecure, "insecure", false, "do not verify the endpoint's TLS certificate (only for a test server you control)")
	fs.StringVar(&f.extra, "extra-body", "", `JSON object merged into every request body, e.g. '{"ignore_eos":true}'; with --options logged its forcing fields (ignore_eos, min_tokens) go only to requests whose logged answer ran to its length without tools or response_format`)
	fs.StringVar(&cfg.Options, "options", "", "logged: send each request with its own logged options (stream, temperature, top_p, n, seed, stop, penalties, logprobs, tools, tool_choice, response_format, the output cap's field, and every other option member as logged; only stream_options.include_usage may be turned on, so that streamed answers carry usage) and cancel it where its client did, sent with its logged cap; none: send none of them, every request streamed auto, the default: logged when the trace's records carry options, else none)")
	fs.StringVar(&cfg.Body, "body", "", "verbatim: send each record's logged body byte for byte, model replaced with --model, at its logged time (traces ingested with --keep-text); prompt and output lengths are then the engine's own, not the trace's")
	fs.BoolVar(&cfg.SendIDs, "send-ids", false, "completions API: send prompts as token ids (vLLM accepts them)")
	fs.Float64Var(&cfg.MaxErrorRate, "max-error-rate", 0.1, "exit 3 when the endpoint failed more than this fraction of requests (failures on the client's own limits do not count)")
	fs.Var(shareFlag{&cfg.MinExact, analysis.DefaultMinExact}, "min-exact", "exit 6, verdict not valid, when fewer than this share of requests had their prompt tokens counted as logged by the endpoint's own usage: the endpoint saw other lengths than the log's (a percentage, 99%, or a fraction, 0.99)")
	fs.Var(shareFlag{&cfg.MaxSkip, analysis.DefaultMaxSkip}, "max-skip", "exit 7, verdict not valid, when more than this share of the log's lines were rejected as bad under --on-error skip (records that are no model request do not count)")
	durationWords(fs, &f.maxLateness, "max-lateness", analysis.DefaultMaxLateness, "exit 5, verdict client-bound, when the send lateness p99 exceeds this: the figures then measure this machine (none: don't judge; 0 means none too)", none(time.Duration(0)))
	intWords(fs, &cfg.Preconnect, "preconnect", runner.PreconnectAuto, "connections opened before the first send, so early requests and bursts pay no connect the server sees as lateness (auto: the most requests the schedule sends within 5 s, at most 256, and -1 means auto too; none: open none first, as does 0)", auto(runner.PreconnectAuto), none(0))
	intWords(fs, &cfg.ClientLimit, "client-limit", 0, "most requests in flight this machine holds before it holds further sends as client backlog (auto: from ulimit -n and the ephemeral ports, and 0 means auto too; none: no limit, as does -1)", auto(0), none(-1))
	fs.BoolVar(&cfg.KeepPrompts, "keep-prompts", false, "store each prompt's text in requests.parquet")
	fs.Var(sizeFlag{&cfg.PlanMemory}, "plan-memory", "prompt memory held before the first send: a window whose prompts need more (a day of traffic) builds them as the run goes, this much ahead of their sends; e.g. 512MiB, 8GiB; all: always build every prompt first; auto: 1 GiB, an eighth of this machine's memory or a quarter of --memory, the least (0 means auto too)")
	fs.Var(sizeFlag{&cfg.Memory}, "memory", "the process's memory budget while the schedule runs: garbage collection waits until it nears this (fewer pauses on the send path), and a run whose window leaves too little of it stops before the first send, exit 1, naming the fix; e.g. 4GiB; auto: 2 GiB, or half this machine's memory when less (0 means auto too); all: no budget, collect at what is in use plus 1 GiB")
}

// addMeasures: the server's metrics scraped during the run, and the cost of its GPUs.
func (f *runFlags) addMeasures(fs *pflag.FlagSet) {
	cfg := &f.cfg
	fs.StringVar(&cfg.MetricsURL, "metrics-url", "", "the endpoint's Prometheus page, scraped during the run for vLLM's prefix-cache and queue metrics (default: the endpoint's scheme://host/metrics; none: don't scrape)")
	fs.DurationVar(&cfg.MetricsInterval, "metrics-interval", time.Second, "time between scrapes of --metrics-url")
	fs.StringVar(&cfg.MetricsListen, "metrics-listen", "", "serve replay's own Prometheus metrics at ADDR/metrics during the run, e.g. 127.0.0.1:9464 (requests, in flight, backlog, TTFT/ITL/e2e/lateness histograms, the verdict so far)")
	fs.DurationVar(&cfg.MetricsLinger, "metrics-linger", 15*time.Second, "with --metrics-listen: at the end, keep serving until one scrape reads the final figures, at most this long")
	durationWords(fs, &cfg.SnapshotEvery, "snapshot-every", runner.DefaultSnapshotEvery, "refresh summary.json and report.html, marked partial, this often while the run goes (rows so far in partial/rows-*.parquet); none: never, as does 0", none(time.Duration(0)))
	fs.StringVar(&cfg.Progress, "progress", runner.ProgressAuto, "progress on stderr: auto (a bar on a terminal, plain lines otherwise), plain, or json (one object a line: sent, in_flight, done, errors, lateness_p99_ms, ...)")
	fs.Float64Var(&cfg.CostPerHour, "cost-per-hour", 0, "cost of one GPU-hour, for $/M output tokens in the summary")
	fs.IntVar(&cfg.GPUs, "gpus", 1, "GPUs behind the endpoint, with --cost-per-hour")
}

// addSim: the built-in simulator's model, when there is no --endpoint: replay sim's own flags,
// each as --sim-NAME.
func (f *runFlags) addSim(fs *pflag.FlagSet) {
	addSimFlags(fs, &f.sc, "sim-")
}

// config checks the parsed flags and builds the run's configuration from them.
func (f *runFlags) config(args []string) (runner.Config, error) {
	cfg := f.cfg
	if err := f.in.resolve(args); err != nil {
		return cfg, err
	}
	f.in.sayNotLogs(f.std.stderr)
	var err error
	if cfg.SLO, err = analysis.ParseSLO(f.slo); err != nil {
		return cfg, fmt.Errorf("--slo: %w", err)
	}
	if cfg.Out == "" {
		return cfg, errors.New("--out is required")
	}
	in := f.in
	if in.trace == "" {
		in.trace = "-" // options() insists on a trace; run has a default
	}
	opts, err := in.options()
	if err != nil {
		return cfg, err
	}
	if cfg.Memory > 0 { // the run's budget bounds a log held whole to be sorted, too
		opts.MemoryBudget = cfg.Memory
	}
	cfg.Trace, cfg.Ingest = f.in.trace, opts
	cfg.Synth.Seed = f.seed
	cfg.Synth.BlockSize = f.in.blockSize
	switch f.prefixMode {
	case "trace":
	case "unique":
		cfg.UniquePrefixes = true
	default:
		return cfg, fmt.Errorf("--prefix-mode %q: want trace or unique", f.prefixMode)
	}
	if f.extra != "" {
		if err := json.Unmarshal([]byte(f.extra), &cfg.Client.ExtraBody); err != nil {
			return cfg, fmt.Errorf("--extra-body: want a JSON object: %w", err)
		}
	}
	if cfg.Options == wordAuto {
		cfg.Options = "" // the runner's auto
	}
	if err := f.targets.apply(&cfg, f.apiKeyFile); err != nil {
		return cfg, err
	}
	if err := f.routes.apply(&cfg); err != nil {
		return cfg, err
	}
	if cfg.MetricsInterval <= 0 {
		return cfg, fmt.Errorf("--metrics-interval %v: want a positive duration", cfg.MetricsInterval)
	}
	switch {
	case f.maxLateness < 0:
		return cfg, fmt.Errorf("--max-lateness %v: want 0 (don't judge) or a positive duration", f.maxLateness)
	default: // 0 turns the check off, in the flag as in the runner
		cfg.MaxLateness = f.maxLateness
	}
	if cfg.SnapshotEvery == 0 {
		cfg.SnapshotEvery = -1 // the flag's 0 is never; the runner's 0 is its default
	}
	if cfg.Client.StallTimeout < 0 || cfg.Client.Timeout < 0 {
		return cfg, errors.New("--timeout and --stall-timeout: want 0 (none) or a positive duration")
	}
	if err := f.shards.apply(&cfg, f.std.stderr); err != nil {
		return cfg, err
	}
	cfg.Sim = f.sc
	cfg.Stdout, cfg.Stderr = f.std.stdout, f.std.stderr
	cfg.Version = version
	return cfg, nil
}

func setupRun(fs *pflag.FlagSet, std cli) func(ctx context.Context, args []string) error {
	config := addRunFlags(fs, std)
	var req requireFlag
	req.add(fs, std.stderr)
	checks := fs.String("checks", runner.ChecksAuto, "behaviour checks probed before the warmup (streaming, stop, max_tokens, sampling; all adds tool calls and json_schema), and overload (Retry-After) over the run's answers: "+strings.Join(runner.ChecksLevels, ", ")+" (auto: basic against an endpoint, none against the built-in simulator or in a --shard run); a failed check is reported, and exits 4 only under --require checks")
	tokCheck := fs.String("tokenize-check", runner.TokenizeAuto, "after the measured run, ask the endpoint's own tokenize route (llama.cpp's /apply-template and /tokenize, vLLM's /tokenize) how many tokens each sent prompt is and compare with replay's count: auto (on when the engine is known to serve one), none, on; at most 2000 prompts, evenly spaced, are checked, and a plan built as the run went (too large to keep its prompts) is not checked")
	calibration := fs.String("calibration", "", "replay calibrate's calibration.json: split each TTFT into the predicted prefill of one request alone and queueing (summary, report, queueing.csv)")
	dry := fs.Bool("dry-run", false, "do everything before the first send (read the trace and its window, load the tokenizer, build the prompts, check the endpoint, detect its engine, probe its forcing and run the behaviour checks), print what would be sent, and exit 0 without sending it (--out may be left out)")
	var rc runConfigFlags
	rc.add(fs)
	return func(ctx context.Context, args []string) error {
		resume, err := rc.apply(fs)
		if err != nil {
			return err
		}
		if *dry {
			return dryRun(ctx, fs, config, args)
		}
		cfg, err := config(args)
		if err != nil {
			return err
		}
		cfg.Resume = resume
		if *calibration != "" {
			if cfg.Calibration, err = analysis.ReadCalibration(*calibration); err != nil {
				return fmt.Errorf("--calibration: %w", err)
			}
		}
		if err := req.parse(); err != nil {
			return err
		}
		if err := runner.CheckChecks(*checks); err != nil {
			return err
		}
		cfg.Checks = *checks
		if err := runner.CheckTokenizeCheck(*tokCheck); err != nil {
			return err
		}
		cfg.TokenizeCheck = *tokCheck
		if !resume { // a resumed run's run.yaml is the killed run's, as it was
			if err := writeRunConfig(fs, cfg.Out); err != nil {
				return err
			}
		}
		if len(cfg.Endpoints) > 1 { // every endpoint and each B against A, judged by the comparison
			_, err := compare.Paired(ctx, cfg, req.reqs)
			return runExit(err)
		}
		sum, err := runner.Run(ctx, cfg)
		return req.gate(runExit(err), sum, nil)
	}
}

// dryRun is `replay run --dry-run`: the run up to its first send, into a folder of its own
// when --out is not given (removed after), and no run.yaml.
func dryRun(ctx context.Context, fs *pflag.FlagSet, config func([]string) (runner.Config, error), args []string) error {
	if !fs.Changed("out") {
		tmp, err := os.MkdirTemp("", "replay-dry-run-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		if err := fs.Set("out", tmp); err != nil {
			return err
		}
	}
	cfg, err := config(args)
	if err != nil {
		return err
	}
	cfg.DryRun, cfg.Checks, cfg.TokenizeCheck = true, fs.Lookup("checks").Value.String(), runner.TokenizeNone
	if err := runner.CheckChecks(cfg.Checks); err != nil {
		return err
	}
	if len(cfg.Endpoints) > 1 {
		_, err = runner.RunEndpoints(ctx, cfg)
		return err
	}
	_, err = runner.Run(ctx, cfg)
	return err
}

// runExitCodes is the exit-code table of --help for run and sweep.
const runExitCodes = `  0    valid: the run completed, kept its schedule and sent the logged lengths
  1    bad input or setup (the message names the file, line and field)
  3    the endpoint failed more than --max-error-rate of the requests
  4    a --require limit failed (each term is listed with its value)
  5    client-bound: send lateness p99 over --max-lateness, or requests failed on this
       machine's own limits; the figures measure the load generator, not the endpoint
  6    not valid: the endpoint did not see the logged lengths (prompt tokens exact by its
       usage under --min-exact)
  7    not valid: more than --max-skip of the log's lines were rejected as bad
  Several at once: 1, then 5, 6, 7, 3, 4. An endpoint found saturated sets no exit code.
  130  interrupted (SIGINT, SIGTERM); what finished is written
  Every file (requests.parquet, summary.json with its "verdict", report.html) is written
  before a non-zero exit.`

// runExit maps a run's outcome to the documented exit codes.
func runExit(err error) error {
	switch {
	case errors.Is(err, runner.ErrInterrupted):
		return &exitError{code: 130, err: err}
	case errors.Is(err, runner.ErrClientBound):
		return &exitError{code: 5, err: err}
	case errors.Is(err, runner.ErrLengths):
		return &exitError{code: 6, err: err}
	case errors.Is(err, runner.ErrSkipped):
		return &exitError{code: 7, err: err}
	case errors.Is(err, runner.ErrTooManyFailures):
		return &exitError{code: 3, err: err}
	case errors.Is(err, compare.ErrRequirements):
		return &exitError{code: 4, err: err}
	}
	return err
}
