package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/runfolder"
)

// RunInfo is the run's metadata, passed in by the caller and written under "run".
type RunInfo struct {
	Endpoint       string  `json:"endpoint,omitempty"`
	Model          string  `json:"model,omitempty"`
	API            string  `json:"api,omitempty"`
	Trace          string  `json:"trace,omitempty"`
	Speed          float64 `json:"speed"`
	MaxConcurrency int     `json:"max_concurrency,omitempty"`
	Seed           int64   `json:"seed,omitempty"`
	SLO            string  `json:"slo,omitempty"`
	// SLOClasses are the limits of each SLO class the run was given (--slo-class), as
	// --slo writes them, so that replay report judges each class again as the run did.
	SLOClasses map[string]string `json:"slo_classes,omitempty"`
	Simulated  bool              `json:"simulated,omitempty"`
	StartedAt  time.Time         `json:"started_at,omitzero"`
	Version    string            `json:"version,omitempty"`
	// Recovered marks a run cut before it closed (killed, power lost, disk full) whose rows
	// were recovered from its journal; Recovery says how many and what was dropped.
	Recovered bool              `json:"recovered,omitempty"`
	Recovery  *results.Recovery `json:"recovery,omitempty"`
	// Partial marks a summary refreshed while the run goes (--snapshot-every); PartialRows
	// names the Parquet segments (a glob, from the run's folder) holding the rows it counts.
	Partial     bool   `json:"partial,omitempty"`
	PartialRows string `json:"partial_rows,omitempty"`
	// Options says whether each request was sent with its logged options ("logged") or
	// none ("none"); Body "verbatim" that logged bodies were sent as they were, so the
	// prompt and output lengths are the engine's own, not the trace's.
	Options string `json:"options,omitempty"`
	Body    string `json:"body,omitempty"`
	// Calibration names the file in the run's folder holding the calibration that split
	// TTFT into prefill and queueing (calibration.json); empty for a run without one. It is
	// what lets `replay report`, a cut run's recovery and a shard merge split it again.
	Calibration string `json:"calibration,omitempty"`
	// Stop says why sending ended (completed, duration, canceled), for the verdict.
	Stop string `json:"stop,omitempty"`
	// Limits are the thresholds the run is judged by; nil means DefaultLimits.
	Limits *Limits `json:"limits,omitempty"`
	// ClientLimit and MaxInFlight are the client's in-flight limit and its peak, written
	// under client.
	ClientLimit int `json:"-"`
	MaxInFlight int `json:"-"`
	// NotSent counts requests of the window that never left (e.g. the run was stopped);
	// it is written as requests.not_sent.
	NotSent int64 `json:"-"`
	// ServerCache and IdealCache, when known, are written under cache (server and ideal, with
	// their hit rates beside the one from usage).
	ServerCache *ServerCache `json:"-"`
	IdealCache  *IdealCache  `json:"-"`
	// Engine is the serving engine behind the endpoint as the run found it; nil for runs
	// that did not look (older files).
	Engine *EngineInfo `json:"engine,omitempty"`
	// Checks are the endpoint's behaviour checks (checks.go); nil when none were run.
	Checks *Checks `json:"checks,omitempty"`
	// TokenizeCheck is the server's own token count of the sent prompts against replay's
	// (tokenize.go); nil when the check was not run.
	TokenizeCheck *TokenizeCheck `json:"tokenize_check,omitempty"`
	// Input counts what the log gave (summary.json's input); nil for the default workload.
	Input *Input `json:"-"`
	// TokenizerMismatch says how the endpoint's tokenizer differs from the run's, when the
	// endpoint names its own by content (replay sim does); "" when they agree or it is unknown.
	TokenizerMismatch string `json:"tokenizer_mismatch,omitempty"`
	// Notes are the run's findings the verdict's details carry (e.g. server metrics that
	// stayed empty).
	Notes []string `json:"notes,omitempty"`
	// Resume, for a run that went on from a kill (replay run --resume), says what it went on
	// from and the gap; nil for a run that ran in one go.
	Resume *Resume `json:"resume,omitempty"`
}

// Resume is a resumed run's account: the rows the killed run left (every attempt, warmup
// included) and its measured requests among them that finished, those it sent that never
// finished (lost at the kill: the server saw them, so they were not sent again; also
// requests.lost_at_kill), the wall time from the killed run's last write to the resumed run's
// first send (the gap, which no row's offsets hold: the resumed rows go on from ResumedAtS,
// where the next unsent request was due, or the killed run's last row ended when that was
// later), and where on the run's time line the resumed part began.
type Resume struct {
	RowsBefore     int64   `json:"rows_before"`
	FinishedBefore int64   `json:"finished_before"`
	LostAtKill     int64   `json:"lost_at_kill"`
	GapS           float64 `json:"gap_s"`
	ResumedAtS     float64 `json:"resumed_at_s"`
}

// lostAtKill is the requests a resumed run's kill lost, 0 for a run in one go.
func (info RunInfo) lostAtKill() int64 {
	if info.Resume == nil {
		return 0
	}
	return info.Resume.LostAtKill
}

// EngineInfo is the serving engine of a run (--engine, or detected): its name and version, the
// evidence that named it, whether output lengths were forced on it, whether its prefix cache
// was reset before the measured run, and, when GPU exporters were scraped beside it, each GPU's
// figures and the energy per output token.
type EngineInfo struct {
	Name     string   `json:"name"`
	Version  string   `json:"version,omitempty"`
	Evidence []string `json:"evidence,omitempty"`
	// Forced is true when output lengths were forced to their targets (the forcing probe saw
	// it work, or the simulator runs every answer to its cap). Forcing says how, or why not:
	// "forced", "forced by --extra-body", "not forceable on this engine: ...", "not forced:
	// --body verbatim ..."; ForceFields are the fields the run added to every forced request;
	// Probe is the forcing probe's verdict.
	Forced      bool           `json:"forced"`
	Forcing     string         `json:"forcing"`
	ForceFields map[string]any `json:"force_fields,omitempty"`
	Probe       string         `json:"probe,omitempty"`
	// CacheReset is "reset", "not reset: why", or "left warm" without --reset-cache.
	CacheReset string `json:"cache_reset"`
	// EnergyJPerOutputToken is the GPUs' energy over the measured run (their power draw
	// integrated) per output token, in joules; nil without two power readings of a GPU.
	EnergyJPerOutputToken *float64  `json:"energy_j_per_output_token,omitempty"`
	GPUs                  []GPUStat `json:"gpus,omitempty"`
}

// GPUStat is one GPU over the measured run, from a GPU exporter's scrapes: mean utilization
// (%) and power (W), and the most memory used (MiB); nil where the exporter served none.
type GPUStat struct {
	Exporter      string   `json:"exporter"`
	GPU           string   `json:"gpu"`
	Scrapes       int      `json:"scrapes"`
	MeanUtilPct   *float64 `json:"mean_util_pct"`
	MeanPowerW    *float64 `json:"mean_power_w"`
	MaxMemUsedMiB *float64 `json:"max_mem_used_mib"`
}

// Requests counts the run's requests. Total = OK + Failed + CancelledAsLogged and excludes
// warmup.
type Requests struct {
	Total  int64 `json:"total"`
	OK     int64 `json:"ok"`
	Failed int64 `json:"failed"`
	// CancelledAsLogged counts requests cancelled as their client cancelled them in the log
	// (--options logged): not failures, so never against --max-error-rate, and not answers,
	// so not in the latency figures.
	CancelledAsLogged int64 `json:"cancelled_as_logged,omitempty"`
	Warmup            int64 `json:"warmup"`
	NotSent           int64 `json:"not_sent,omitempty"`
	// LostAtKill counts requests a killed run sent that never finished, when it was resumed
	// (RunInfo.Resume): Total + LostAtKill + NotSent is every request of the window.
	LostAtKill int64 `json:"lost_at_kill,omitempty"`
	// Retried counts attempts tried again under --retries; each has its row, not counted here.
	Retried int64 `json:"retried,omitempty"`
}

// Throughput is over the measured span: first send to last completion (warmup excluded).
type Throughput struct {
	DurationS float64 `json:"duration_s"`
	// ReqS counts successful completions per second; SentReqS every request that left.
	ReqS       float64 `json:"req_s"`
	SentReqS   float64 `json:"sent_req_s"`
	InputTokS  float64 `json:"input_tok_s"`
	OutputTokS float64 `json:"output_tok_s"`
	// Token totals behind the rates: server usage where reported, else the prompt target and
	// the number of content chunks.
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// Goodput is the share of requests meeting the SLO; a failed request meets none of it.
type Goodput struct {
	SLO string `json:"slo"`
	// LimitsMS and MetPct are keyed by SLO name (ttft, itl, tpot, e2e).
	LimitsMS map[string]float64 `json:"limits_ms"`
	MetPct   map[string]float64 `json:"met_pct"`
	AllPct   float64            `json:"all_pct"`
	// ReqS is requests meeting every limit per second of the measured span.
	ReqS float64 `json:"req_s"`
}

// Fidelity says how faithfully the run reproduced its trace. The token figures cover the
// successful requests whose server reported usage (UsageReported of them); they are null when
// none did. Arrival says whether requests left on schedule (arrival.go); null without sends.
//
// Output exactness is over the requests whose length was forced: Unforced counts those with
// usage that were sent without --extra-body's forcing fields because their logged answer
// stopped on its own or was constrained (tools, response_format); their output length is the
// engine's. OutputTokensExactPct is null when every request was unforced.
type Fidelity struct {
	UsageReported        int64    `json:"usage_reported"`
	PromptTokensExactPct *float64 `json:"prompt_tokens_exact_pct"`
	OutputTokensExactPct *float64 `json:"output_tokens_exact_pct"`
	Unforced             int64    `json:"unforced,omitempty"`
	Arrival              *Arrival `json:"arrival"`
}

// Summary is summary.json. Latencies are in milliseconds; TTFT and e2e are from the moment the
// request left, the _sched variants from the moment it was due (queue wait and lateness
// included, so a concurrency cap cannot hide latency); ITL are gaps between consecutive content
// chunks; TPOT is per request (last - first token) / (output tokens - 1); lateness is send-timer
// lateness (sent - scheduled - queue wait).
type Summary struct {
	// Verdict is the run's judgement in one line, starting with valid, not valid, failed,
	// client-bound, interrupted or cut (see verdict.go); Judgement holds its parts.
	Verdict   string     `json:"verdict"`
	Judgement *Judgement `json:"judgement,omitempty"`
	Input     *Input     `json:"input,omitempty"`
	Run       RunInfo    `json:"run"`
	Requests  Requests   `json:"requests"`
	TTFT      Dist       `json:"ttft_ms"`
	TTFTSched Dist       `json:"ttft_sched_ms"`
	// TTFAT is the time to the first answer token (reasoning.go): TTFT for a model that does
	// not think; after the thinking for one that does.
	TTFAT      Dist             `json:"ttfat_ms"`
	ITL        Dist             `json:"itl_ms"`
	TPOT       Dist             `json:"tpot_ms"`
	E2E        Dist             `json:"e2e_ms"`
	E2ESched   Dist             `json:"e2e_sched_ms"`
	Lateness   Dist             `json:"lateness_ms"`
	QueueWait  Dist             `json:"queue_wait_ms"`
	Client     ClientSide       `json:"client"`
	Throughput Throughput       `json:"throughput"`
	Goodput    *Goodput         `json:"goodput,omitempty"`
	Fidelity   Fidelity         `json:"fidelity"`
	Reasoning  *Reasoning       `json:"reasoning,omitempty"`
	Errors     map[string]int64 `json:"errors"`
	// ErrorSamples holds the first message seen for each error class.
	ErrorSamples map[string]string `json:"error_samples,omitempty"`
	Cache        Cache             `json:"cache"`
	// ServerMetrics says how many samples the endpoint's metrics page gave, with a note when
	// it gave none (server_metrics.go); omitted when no page was scraped.
	ServerMetrics *ServerMetrics `json:"server_metrics,omitempty"`
	Sessions      *Sessions      `json:"sessions,omitempty"`
	Cost          *Cost          `json:"cost,omitempty"`
	// Queueing splits TTFT into predicted prefill and queueing under --calibration.
	Queueing *Queueing `json:"queueing,omitempty"`
	// Populations are the figures of each population (results.Population: stream or
	// nostream, crossed with tools, json or plain) side by side; omitted for rows that name
	// none (files of older runs).
	Populations map[string]Population `json:"populations,omitempty"`
	// APIs are the same figures for each API the requests went to (chat, completions,
	// responses, messages, embeddings), side by side; omitted for older runs' rows.
	APIs map[string]Population `json:"apis,omitempty"`
	// Media are the figures of a run whose requests carried images or audio (media.go):
	// requests by what they carried, TTFT by media tokens (images and clips), the bytes sent; nil otherwise.
	Media *Media `json:"media,omitempty"`
	// SLOClasses are the figures of each SLO class (--slo-class-by), keyed by class value,
	// and Models those of each served model (--model-map), keyed by the name sent
	// (classes.go); omitted when no row names either.
	SLOClasses map[string]Group `json:"slo_classes,omitempty"`
	Models     map[string]Group `json:"models,omitempty"`

	// saturated says why the endpoint was saturated, judged from the rows (saturation.go).
	saturated string
}

// Input counts what the log gave: the lines (records) read, those kept as records, those
// rejected as bad (--on-error skip) and those skipped as no model request (a gateway's tool
// calls, health checks).
type Input struct {
	Lines       int64 `json:"lines"`
	Records     int64 `json:"records"`
	Rejected    int64 `json:"rejected"`
	NotRequests int64 `json:"not_requests"`
	// ImagesSizeInferred counts the images logged by URL alone whose size was told from the
	// prompt tokens their line's text does not explain: their replay is as exact as that guess.
	ImagesSizeInferred int64 `json:"images_size_inferred,omitempty"`
}

// Sessions counts the run's multi-turn traffic: requests that carry a session, the sessions
// they started, those that went past one turn, and the later turns, each of which was released
// only once its previous turn's answer arrived (the scheduler's gating), so a slow endpoint
// delays a conversation as it would a real user. Nil when no request carried a session.
type Sessions struct {
	Requests   int64 `json:"requests"`
	Sessions   int64 `json:"sessions"`
	MultiTurn  int64 `json:"multi_turn"`
	LaterTurns int64 `json:"later_turns"`
}

// Cost is what the run's output tokens cost at its operating point (the run's speed against
// this endpoint), given a price per GPU-hour: PerGPUHour*GPUs / (output tokens per second *
// 3600) * 1e6 per million tokens, the rate taken over the measured span. PerMOutputTokensSLO
// counts only the output of requests meeting every SLO limit over the same span, since output
// that misses the SLO is paid for but worth nothing; with an SLO it is the cost to quote (null
// without an SLO or when no request met it). $2/h x 8 GPUs at 1,000 tok/s is $4.4444/M.
type Cost struct {
	PerGPUHour          float64  `json:"per_gpu_hour"`
	GPUs                int      `json:"gpus"`
	PerMOutputTokens    *float64 `json:"per_m_output_tokens"`
	PerMOutputTokensSLO *float64 `json:"per_m_output_tokens_at_slo"`
}

// PerMTokens is the cost of a million tokens produced at tokS per second for perHour an hour.
func PerMTokens(perHour, tokS float64) *float64 {
	if !(tokS > 0) {
		return nil
	}
	v := math.Round(perHour/(tokS*3600)*1e6*10000) / 10000
	return &v
}

func pct(n, d int64) float64 {
	if d == 0 {
		return 0
	}
	return round3(100 * float64(n) / float64(d))
}

func pctPtr(n, d int64) *float64 {
	if d == 0 {
		return nil
	}
	v := pct(n, d)
	return &v
}

func rate(n float64, durS float64) float64 {
	if durS <= 0 {
		return 0
	}
	return round3(n / durS)
}

// Summary closes the aggregation and returns its figures with the caller's run metadata.
// A zero info.Speed is filled from the options.
func (m *Metrics) Summary(info RunInfo) *Summary {
	m.Close()
	if info.Speed == 0 {
		info.Speed = m.opts.Speed
	}
	if info.SLO == "" {
		info.SLO = m.opts.SLO.String()
	}
	dur := m.durationS()
	s := &Summary{
		Run: info,
		Requests: Requests{
			Total: m.total, OK: m.ok, Failed: m.failed, Warmup: m.warmup, NotSent: info.NotSent,
			Retried: m.retried, CancelledAsLogged: m.cancelled, LostAtKill: info.lostAtKill(),
		},
		Client: ClientSide{Limit: info.ClientLimit, MaxInFlight: info.MaxInFlight, Held: m.held,
			Backlog: m.backlog.dist(), Errors: m.clientFailed},
		TTFT:      m.ttft.dist(),
		TTFTSched: m.ttftSched.dist(),
		TTFAT:     m.ttfat.dist(),
		ITL:       m.itl.dist(),
		TPOT:      m.tpot.dist(),
		E2E:       m.e2e.dist(),
		E2ESched:  m.e2eSched.dist(),
		Lateness:  m.lateness.dist(),
		QueueWait: m.queueWait.dist(),
		Throughput: Throughput{
			DurationS:    round3(dur),
			ReqS:         rate(float64(m.ok), dur),
			SentReqS:     rate(float64(m.total), dur),
			InputTokS:    rate(float64(m.inputTokens), dur),
			OutputTokS:   rate(float64(m.outputTokens), dur),
			InputTokens:  m.inputTokens,
			OutputTokens: m.outputTokens,
		},
		Fidelity: Fidelity{
			UsageReported:        m.usageRows,
			PromptTokensExactPct: pctPtr(m.promptExact, m.usageRows),
			OutputTokensExactPct: pctPtr(m.outputExact, m.usageRows-m.unforcedUsage),
			Unforced:             m.unforcedUsage,
		},
		Populations: m.populations(dur),
		APIs:        m.apiPopulations(dur),
		Media:       m.media.summary(dur),
		Errors:      map[string]int64{},
		Cache: Cache{
			CachedTokens: m.cachedTokens,
			PromptTokens: m.reportedPrompt,
			HitPct:       pctPtr(m.cachedTokens, m.reportedPrompt),
		},
	}
	if m.sessions.Requests > 0 {
		ss := m.sessions
		s.Sessions = &ss
	}
	m.addCache(s, info)
	m.groupFigures(s, dur)
	s.Fidelity.Arrival = m.arrival
	s.Reasoning = m.reasoning.summary()
	m.addErrors(s)
	s.Cost = m.cost(dur)
	s.Goodput = m.goodput(dur)
	s.Queueing = m.queue.summary(m.server)
	s.Input = info.Input
	s.saturated = m.saturation()
	s.judge(info.Stop)
	return s
}

// addCache fills the hit rates beside the usage's: none from usage when no answer reported
// usage, the server's from its counters, the trace's ideal.
func (m *Metrics) addCache(s *Summary, info RunInfo) {
	if m.usageRows == 0 {
		s.Cache.HitPct = nil
	}
	if c := info.ServerCache; c != nil {
		s.Cache.Server = c
		s.Cache.ServerHitPct = c.HitPct()
		s.ServerMetrics = serverMetrics(c)
	}
	if c := info.IdealCache; c != nil {
		s.Cache.Ideal = c
		v := c.HitPct
		s.Cache.IdealHitPct = &v
		if c.Logged != nil {
			l := c.Logged.HitPct
			s.Cache.LoggedHitPct = &l
		}
	}
}

// addErrors copies the error classes' counts and one message each (maps the summary owns).
func (m *Metrics) addErrors(s *Summary) {
	for k, v := range m.errors {
		s.Errors[k] = v
	}
	if len(m.errorSample) > 0 {
		s.ErrorSamples = map[string]string{}
		for k, v := range m.errorSample {
			s.ErrorSamples[k] = v
		}
	}
}

// cost is the run's price per million output tokens (and within the SLO), nil without a price.
func (m *Metrics) cost(dur float64) *Cost {
	if m.opts.CostPerHour <= 0 {
		return nil
	}
	perHour := m.opts.CostPerHour * float64(m.opts.GPUs)
	c := &Cost{PerGPUHour: m.opts.CostPerHour, GPUs: m.opts.GPUs}
	if dur > 0 {
		c.PerMOutputTokens = PerMTokens(perHour, float64(m.outputTokens)/dur)
		if !m.opts.SLO.IsZero() {
			c.PerMOutputTokensSLO = PerMTokens(perHour, float64(m.sloOutTokens)/dur)
		}
	}
	return c
}

// goodput is the share of requests within each SLO limit and within all, nil without an SLO.
func (m *Metrics) goodput(dur float64) *Goodput {
	slo := m.opts.SLO
	if slo.IsZero() {
		return nil
	}
	g := &Goodput{SLO: slo.String(), LimitsMS: map[string]float64{}, MetPct: map[string]float64{}}
	for i, k := range sloKeys {
		if d := *slo.field(k); d > 0 {
			g.LimitsMS[k] = round3(float64(d) / float64(time.Millisecond))
			g.MetPct[k] = pct(m.sloMet[i], m.total)
		}
	}
	g.AllPct = pct(m.sloAll, m.total)
	g.ReqS = rate(float64(m.sloAll), dur)
	return g
}

// WriteSummary writes dir/summary.json (indented, keys in a fixed order) via a temporary file,
// so a reader never sees half a summary.
func WriteSummary(dir string, s *Summary) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("encode summary: %w", err)
	}
	return runfolder.WriteFile(filepath.Join(dir, runfolder.Summary), buf.Bytes())
}

// ReadSummary reads a summary.json written by WriteSummary.
func ReadSummary(path string) (*Summary, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseSummary(path, b)
}

func parseSummary(name string, b []byte) (*Summary, error) {
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if s.Run.Speed < 0 || math.IsNaN(s.Run.Speed) || math.IsInf(s.Run.Speed, 0) {
		return nil, fmt.Errorf("%s: run.speed %v: want a positive factor", name, s.Run.Speed)
	}
	return &s, nil
}

// WriteRunData writes dir/summary.json from a run's aggregated rows and returns the summary
// (report.WriteRunFiles draws report.html from the same rows after it). A calibrated run's
// calibration is kept beside it (calibration.json, named by run.calibration) and, but in a
// snapshot, its per-request split (queueing.csv).
func WriteRunData(dir string, m *Metrics, info RunInfo) (*Summary, error) {
	if m.queue != nil {
		info.Calibration = runfolder.Calibration
		if err := WriteCalibration(dir, m.queue.cal); err != nil {
			return nil, err
		}
	}
	s := m.Summary(info)
	if err := WriteSummary(dir, s); err != nil {
		return s, err
	}
	if m.queue == nil || info.Partial {
		return s, nil
	}
	return s, runfolder.WriteFile(filepath.Join(dir, runfolder.Queueing), QueueingCSV(m.queue.reqs))
}
