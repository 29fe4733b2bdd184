package report

import (
	"bytes"
	"html/template"
	"io"
	"path/filepath"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/runfolder"
)

// Options tune report.html.
type Options struct {
	// NoEmbedFont leaves the plot font out of the page (about 0.5 MB smaller); text then falls
	// back to the browser's sans-serif and labels may be placed slightly off. For tests.
	NoEmbedFont bool
}

type reportPage struct {
	S           *analysis.Summary
	Headline    headline
	Fidelity    []fidelityRow
	Populations []populationRow
	APIs        []populationRow
	// MediaPops and MediaTokens are the media section's tables (summary.json's media).
	MediaPops, MediaTokens []populationRow
	// GroupTables are the SLO classes' and served models' tables (groups.go).
	GroupTables []classTable
	// Dists are the latency table's rows a user reads (TTFT, ITL, TPOT, e2e); MoreDists the
	// rest, folded under it (from scheduled, lateness, queue wait).
	Dists, MoreDists []analysis.DistRow
	SLORows          []sloRow
	Figures          []Figure
	FontCSS          template.CSS
	Errors           []errorRow
	// Checks is the behaviour checks' table (checks.go), "" when the run had none.
	Checks template.HTML
}

// populationRow is one line of the populations table, in analysis.PopulationNames order.
type populationRow struct {
	Name string
	P    analysis.Population
}

func populationRows(pops map[string]analysis.Population) []populationRow {
	var rows []populationRow
	for _, name := range analysis.PopulationNames(pops) {
		rows = append(rows, populationRow{name, pops[name]})
	}
	return rows
}

// orderedRows are a group table's lines, in the order of names, those pops holds.
func orderedRows(names []string, pops map[string]analysis.Population) []populationRow {
	var rows []populationRow
	for _, n := range present(names, pops) {
		rows = append(rows, populationRow{n, pops[n]})
	}
	return rows
}

// apiRows are the APIs table's lines, in analysis.APINames order; none for a run that sent
// to one API only (the populations table says it all then).
func apiRows(apis map[string]analysis.Population) []populationRow {
	if len(apis) < 2 {
		return nil
	}
	var rows []populationRow
	for _, name := range analysis.APINames(apis) {
		rows = append(rows, populationRow{name, apis[name]})
	}
	return rows
}

type sloRow struct {
	Name    string
	LimitMS float64
	MetPct  float64
}

type errorRow struct {
	Class, Sample string
	Count         int64
}

// WriteHTML writes report.html: the summary tables and every plot as inline SVG. The page
// needs nothing from the network; its size is dominated by the embedded font (~0.5 MB).
func WriteHTML(w io.Writer, m *analysis.Metrics, s *analysis.Summary, o Options) error {
	m.Close()
	figs, err := reportPlots(m, s)
	if err != nil {
		return err
	}
	if figs, err = appendQueueingFigures(m, figs); err != nil {
		return err
	}
	page := reportPage{S: s, Headline: newHeadline(s), Fidelity: fidelityRows(s), Figures: figs,
		Populations: populationRows(s.Populations), APIs: apiRows(s.APIs), Checks: checksHTML(s), GroupTables: classTables(s)}
	if md := s.Media; md != nil {
		page.MediaPops, page.MediaTokens = orderedRows(analysis.MediaPopulations, md.Populations), orderedRows(analysis.MediaTokenBuckets, md.ByMediaTokens)
	}
	page.Dists, page.MoreDists = splitDists(s.DistRows())
	if page.FontCSS, err = PageFont(o.NoEmbedFont); err != nil {
		return err
	}
	if g := s.Goodput; g != nil {
		for _, k := range analysis.SLONames() {
			if v, ok := g.MetPct[k]; ok {
				page.SLORows = append(page.SLORows, sloRow{k, g.LimitsMS[k], v})
			}
		}
	}
	for _, k := range sortedKeys(s.Errors) {
		page.Errors = append(page.Errors, errorRow{Class: k, Count: s.Errors[k], Sample: s.ErrorSamples[k]})
	}
	return WritePage(w, reportTmpl, page, "report")
}

// splitDists keeps the latencies a user reads in the latency table and folds the near
// duplicates measured from the scheduled time, and the client's own lateness and queue wait,
// under it.
func splitDists(rows []analysis.DistRow) (main, more []analysis.DistRow) {
	for _, r := range rows {
		switch r.Name {
		case "ttft", "ttfat", "itl", "tpot", "e2e":
			main = append(main, r)
		default:
			more = append(more, r)
		}
	}
	return main, more
}

// WriteRunFiles writes a run's files from its aggregated rows (analysis.WriteRunData: the
// summary, and a calibrated run's calibration.json and queueing.csv), then dir/report.html, and
// returns the summary. This is what a run calls when it ends and what `replay report` calls.
func WriteRunFiles(dir string, m *analysis.Metrics, info analysis.RunInfo) (*analysis.Summary, error) {
	s, err := analysis.WriteRunData(dir, m, info)
	if err != nil {
		return s, err
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, m, s, Options{}); err != nil {
		return s, err
	}
	return s, runfolder.WriteFile(filepath.Join(dir, runfolder.Report), buf.Bytes())
}

var reportTmpl = template.Must(template.New("report").Funcs(PageFuncs).Parse(reportHTML))

var reportHTML = PageHead(`replay report{{with .S.Run.Model}} · {{.}}{{end}}`) + `th:first-child,td:first-child{text-align:left}
th{background:#f4f6f8;font-weight:bold}
.meta td{text-align:left}
.note{color:#555;font-size:13px;margin:2px 0 8px}
.bad{color:#b00}
.verdict{font-size:16px;font-weight:bold}
table.headline{margin:10px 0 14px;font-size:15px}
table.headline td{font-size:17px;padding:6px 12px;text-align:left}
table.headline th{text-align:left}
details{margin:4px 0 10px}
.nodata{color:#555;font-size:14px;margin:14px 0}
summary{cursor:pointer;color:#333;font-size:14px}
{{if .Checks}}` + ChecksCSS + `{{end}}</style>
</head>
<body>
<h1>replay report</h1>
` + headlineHTML + `{{with .S.Run.Checks}}{{with .Failed}}<p id="checks-failed" class="verdict bad">behaviour checks failed: {{range $i, $n := .}}{{if $i}}, {{end}}<a href="#checks">{{$n}}</a>{{end}}</p>
{{end}}{{end}}<p class="note">Open-loop replay of a production trace. Every figure excludes warmup requests; latencies of failed requests are excluded and the failures counted.</p>{{with .S.Run.Recovery}}
<p class="bad">This run was cut before it closed (killed, power lost or disk full): its {{.Rows}} rows were recovered from {{.From}}{{with .Dropped}} ({{.}}){{end}}. Requests in flight at the cut, and those never sent, are not in them.</p>{{end}}

<h2>Run</h2>
<table class="meta">
{{with .S.Run.Endpoint}}<tr><td>endpoint</td><td>{{.}}</td></tr>{{end}}
{{if .S.Run.Simulated}}<tr><td>engine</td><td>built-in simulator (not a real model)</td></tr>{{else}}{{with .S.Run.Engine}}<tr><td>engine</td><td>{{.Name}}{{with .Version}} {{.}}{{end}}; output {{if .Forced}}forced to its targets{{else}}<span class="bad">not forced</span>{{end}}; prefix cache {{.CacheReset}}</td></tr>{{end}}{{end}}
{{with .S.Run.Model}}<tr><td>model</td><td>{{.}}</td></tr>{{end}}
{{with .S.Run.API}}<tr><td>api</td><td>{{.}}</td></tr>{{end}}
{{with .S.Run.Trace}}<tr><td>trace</td><td>{{.}}</td></tr>{{end}}
<tr><td>speed</td><td>{{.S.Run.Speed}}x</td></tr>
{{with .S.Run.MaxConcurrency}}<tr><td>max concurrency</td><td>{{.}}</td></tr>{{end}}
{{with .S.Run.SLO}}<tr><td>SLO</td><td>{{.}}</td></tr>{{end}}
{{with .S.Run.Options}}<tr><td>options</td><td>{{if eq . "logged"}}each request with its logged options (sampling, stop, tools, response_format, n, stream){{else}}{{.}}{{end}}</td></tr>
{{end}}{{if eq .S.Run.Body "verbatim"}}<tr><td>body</td><td class="bad">logged bodies sent verbatim (model replaced): prompt and output lengths are the engine's own, not the trace's</td></tr>
{{end}}{{if not .S.Run.StartedAt.IsZero}}<tr><td>started</td><td>{{.S.Run.StartedAt.UTC.Format "2006-01-02 15:04:05 UTC"}}</td></tr>{{end}}
{{with .S.Run.Version}}<tr><td>replay version</td><td>{{.}}</td></tr>{{end}}
{{with .S.ServerMetrics}}{{with .Note}}<tr><td>server metrics</td><td class="bad">{{.}}</td></tr>
{{end}}{{end}}</table>

{{if .Checks}}<h2 id="checks">Behaviour checks</h2>
{{.Checks}}<p class="note">Probes sent before the warmup (--checks {{.S.Run.Checks.Level}}): each a few small requests of the endpoint, counted pass/fail with what was seen; overload judges every answer of the run (each 429 and 503 must carry Retry-After). A failed check changes the exit code only under --require checks.</p>

{{end}}<h2>Summary</h2>
<table>
<tr><th>requests</th><th>total</th><th>ok</th><th>failed</th>{{if .S.Requests.CancelledAsLogged}}<th>cancelled as logged</th>{{end}}<th>warmup</th>{{if .S.Requests.NotSent}}<th>not sent</th>{{end}}</tr>
<tr><td></td><td>{{.S.Requests.Total}}</td><td>{{.S.Requests.OK}}</td><td{{if .S.Requests.Failed}} class="bad"{{end}}>{{.S.Requests.Failed}}</td>{{if .S.Requests.CancelledAsLogged}}<td>{{.S.Requests.CancelledAsLogged}}</td>{{end}}<td>{{.S.Requests.Warmup}}</td>{{if .S.Requests.NotSent}}<td class="bad">{{.S.Requests.NotSent}}</td>{{end}}</tr>
</table>
<table>
<tr><th>throughput</th><th>requests/s</th><th>input tokens/s</th><th>output tokens/s</th><th>measured span</th></tr>
<tr><td></td><td>{{f2 .S.Throughput.ReqS}}</td><td>{{f1 .S.Throughput.InputTokS}}</td><td>{{f1 .S.Throughput.OutputTokS}}</td><td>{{f1 .S.Throughput.DurationS}} s</td></tr>
</table>
<table>
<tr><th>latency (ms)</th><th>n</th><th>p50</th><th>p90</th><th>p95</th><th>p99</th><th>p99.9</th><th>max</th><th>mean</th></tr>
{{range .Dists}}<tr><td>{{.Name}}</td><td>{{.D.Count}}</td><td>{{ms .D.P50}}</td><td>{{ms .D.P90}}</td><td>{{ms .D.P95}}</td><td>{{ms .D.P99}}</td><td>{{ms .D.P999}}</td><td>{{ms .D.Max}}</td><td>{{ms .D.Mean}}</td></tr>
{{end}}</table>
<details><summary>from the scheduled time, send lateness and queue wait</summary>
<table>
<tr><th>latency (ms)</th><th>n</th><th>p50</th><th>p90</th><th>p95</th><th>p99</th><th>p99.9</th><th>max</th><th>mean</th></tr>
{{range .MoreDists}}<tr><td>{{.Name}}</td><td>{{.D.Count}}</td><td>{{ms .D.P50}}</td><td>{{ms .D.P90}}</td><td>{{ms .D.P95}}</td><td>{{ms .D.P99}}</td><td>{{ms .D.P999}}</td><td>{{ms .D.Max}}</td><td>{{ms .D.Mean}}</td></tr>
{{end}}</table>
</details>
{{if .Populations}}<h2 id="populations">Populations</h2>
<table>
<tr><th>population</th><th>requests</th><th>ok</th><th>failed</th><th>cancelled as logged</th><th>ttft p50</th><th>ttft p95</th><th>e2e p50</th><th>e2e p95</th><th>output tokens/s</th></tr>
{{range .Populations}}<tr><td>{{.Name}}</td><td>{{.P.Requests}}</td><td>{{.P.OK}}</td><td{{if .P.Failed}} class="bad"{{end}}>{{.P.Failed}}</td><td>{{.P.CancelledAsLogged}}</td>{{with .P.TTFT}}<td>{{ms .P50}}</td><td>{{ms .P95}}</td>{{else}}<td>-</td><td>-</td>{{end}}<td>{{ms .P.E2E.P50}}</td><td>{{ms .P.E2E.P95}}</td><td>{{f1 .P.OutputTokS}}</td></tr>
{{end}}</table>
<p class="note">Requests by how they were sent: streamed or not (nostream), and offered tools, asked for JSON (response_format) or plain. Latencies in ms over the successful requests; non-streamed requests are measured end to end only, so they have no TTFT and are in no TTFT, ITL or TPOT figure above. Output tokens/s is over the run's measured span, so the populations add up to the run's.</p>
{{end}}{{if .APIs}}<h2 id="apis">APIs</h2>
<table>
<tr><th>api</th><th>requests</th><th>ok</th><th>failed</th><th>cancelled as logged</th><th>ttft p50</th><th>ttft p95</th><th>e2e p50</th><th>e2e p95</th><th>prompt tokens</th><th>output tokens/s</th></tr>
{{range .APIs}}<tr><td>{{.Name}}</td><td>{{.P.Requests}}</td><td>{{.P.OK}}</td><td{{if .P.Failed}} class="bad"{{end}}>{{.P.Failed}}</td><td>{{.P.CancelledAsLogged}}</td>{{with .P.TTFT}}<td>{{ms .P50}}</td><td>{{ms .P95}}</td>{{else}}<td>-</td><td>-</td>{{end}}<td>{{ms .P.E2E.P50}}</td><td>{{ms .P.E2E.P95}}</td><td>{{.P.PromptTokens}}</td><td>{{f1 .P.OutputTokS}}</td></tr>
{{end}}</table>
<p class="note">Requests by the API each was sent to, as it was logged against: chat completions, completions, the Responses API, Anthropic's Messages API, embeddings. TTFT for an API some of whose answers streamed; embeddings have no output and are measured end to end.</p>
{{end}}{{with .S.Media}}<h2 id="media">Media</h2>
<p>{{.Requests}} requests carried {{.Images}} images and {{.AudioClips}} audio clips, {{.MediaTokens}} prompt tokens of them; {{mib .BytesSent}} MiB of media sent inline in the bodies.</p>
<table>
<tr><th>carried</th><th>requests</th><th>ok</th><th>failed</th><th>cancelled as logged</th><th>ttft p50</th><th>ttft p95</th><th>e2e p50</th><th>e2e p95</th><th>prompt tokens</th><th>output tokens/s</th></tr>
{{range $.MediaPops}}<tr><td>{{.Name}}</td><td>{{.P.Requests}}</td><td>{{.P.OK}}</td><td{{if .P.Failed}} class="bad"{{end}}>{{.P.Failed}}</td><td>{{.P.CancelledAsLogged}}</td>{{with .P.TTFT}}<td>{{ms .P50}}</td><td>{{ms .P95}}</td>{{else}}<td>-</td><td>-</td>{{end}}<td>{{ms .P.E2E.P50}}</td><td>{{ms .P.E2E.P95}}</td><td>{{.P.PromptTokens}}</td><td>{{f1 .P.OutputTokS}}</td></tr>
{{end}}</table>
<table>
<tr><th>media tokens</th><th>requests</th><th>ok</th><th>failed</th><th>cancelled as logged</th><th>ttft p50</th><th>ttft p95</th><th>e2e p50</th><th>e2e p95</th><th>prompt tokens</th><th>output tokens/s</th></tr>
{{range $.MediaTokens}}<tr><td>{{.Name}}</td><td>{{.P.Requests}}</td><td>{{.P.OK}}</td><td{{if .P.Failed}} class="bad"{{end}}>{{.P.Failed}}</td><td>{{.P.CancelledAsLogged}}</td>{{with .P.TTFT}}<td>{{ms .P50}}</td><td>{{ms .P95}}</td>{{else}}<td>-</td><td>-</td>{{end}}<td>{{ms .P.E2E.P50}}</td><td>{{ms .P.E2E.P95}}</td><td>{{.P.PromptTokens}}</td><td>{{f1 .P.OutputTokS}}</td></tr>
{{end}}</table>
<p class="note">Requests by the media they carried (audio wins over images), then by the prompt tokens of their media as the rule the prompts were built with counts them. An image costs a vision-encoder pass and its tokens' prefill, so these populations' TTFTs differ by design. Media sent as URLs (--media-listen) are fetched by the engine and not counted as sent inline.</p>
{{end}}` + groupsHTML + `{{with .S.Reasoning}}<h2 id="reasoning">Reasoning</h2>
<table>
<tr><th>requests that thought</th><th>never answered</th><th>thinking share of output</th><th>ttfat p50 / p95 (ms)</th><th>itl thinking p50 / p95 (ms)</th><th>itl answer p50 / p95 (ms)</th><th>thought as logged</th></tr>
<tr><td>{{.Requests}}</td><td{{if .NeverAnswered}} class="bad"{{end}}>{{.NeverAnswered}}</td><td>{{pct .SharePct}} ({{.ReasoningTokens}} thinking, {{.AnswerTokens}} answer tokens)</td><td>{{ms $.S.TTFAT.P50}} / {{ms $.S.TTFAT.P95}}</td><td>{{ms .ITLThinking.P50}} / {{ms .ITLThinking.P95}}</td><td>{{ms .ITLAnswer.P50}} / {{ms .ITLAnswer.P95}}</td><td>{{if .Logged}}{{pct .SplitExactPct}} of {{.Logged}}{{else}}the log did not say{{end}}</td></tr>
</table>
<p class="note">TTFAT, time to first answer token: from the send to the first token of the answer, after any thinking; what a user of a reasoning model waits for (TTFT counts the first token of either kind). A request that thought and never answered is in no TTFAT figure and misses a ttfat SLO. Thinking tokens are the server's count where its usage gives one, else the thinking chunks counted; ITL of thinking is over the chunks before the first answer chunk.</p>
{{end}}<p class="note">TTFT and e2e are measured from the moment a request was handed to the HTTP client (a connect on the way counts); "from scheduled" from the moment the trace said it should leave, so waiting behind a concurrency cap or a late timer counts (no coordinated omission). ITL: gaps between streamed chunks. TPOT: (last token - first token) / (output tokens - 1) per request, output tokens from server usage, else the chunks seen. Lateness: when the request's last byte was written, as the server would see it, - scheduled - queue wait.</p>

{{with .S.Goodput}}<h2>Goodput at SLO</h2>
<table>
<tr><th>SLO</th><th>limit (ms)</th><th>requests meeting it</th></tr>
{{range $.SLORows}}<tr><td>{{.Name}}</td><td>{{ms .LimitMS}}</td><td>{{f1 .MetPct}}%</td></tr>
{{end}}<tr><td><b>all of them</b></td><td></td><td><b>{{f1 .AllPct}}%</b> ({{f2 .ReqS}} req/s)</td></tr>
</table>
<p class="note">A failed request meets no SLO. TTFT and e2e are judged from the scheduled time; ITL against each request's largest gap.</p>
{{end}}

<h2>Fidelity</h2>
<table>
<tr><th>check</th><th>value</th></tr>
{{range .Fidelity}}<tr><td>{{.Check}}</td><td{{if .Bad}} class="bad"{{end}}>{{.Value}}</td></tr>
{{end}}</table>
<details><summary>every fidelity measure</summary>
<table>
<tr><th>measure</th><th>value</th></tr>
{{with .S.Run.Engine}}{{if not .Forced}}<tr><td>output length forcing</td><td class="bad">{{.Forcing}}</td></tr>
{{end}}{{end}}<tr><td>requests with server-reported usage</td><td>{{.S.Fidelity.UsageReported}}</td></tr>
{{with .S.Fidelity.Arrival}}<tr><td>arrivals at the stricter on-time mark (lateness p99 under {{onTimeMS}} ms, bursts within 1 ms kept together: more than 2 and 5% broken is over it); the run is judged behind only past its --max-lateness limit, above{{if eq .Verdict "capped"}}; a capped run follows its concurrency cap, so its queue wait is given instead{{end}}</td><td>{{if eq .Verdict "behind"}}over the mark{{else}}{{.Verdict}}{{end}}{{with .Why}}: {{.}}{{end}}</td></tr>
{{if ne .Verdict "capped"}}<tr><td>most requests due and not yet sent at one instant</td><td>{{.MaxBehind}}</td></tr>
{{with .RateMaxDevReqS}}<tr><td>achieved against scheduled rate, largest difference in one second</td><td>{{f3 .}} req/s ({{f3 $.S.Fidelity.Arrival.RateMaxDevPct}}% of the mean rate)</td></tr>
{{end}}{{with .BurstsKeptPct}}<tr><td>bursts (requests the schedule puts within 1 ms of each other) that left within 1 ms</td><td>{{f3 .}}% of {{$.S.Fidelity.Arrival.Bursts}}</td></tr>
{{end}}{{end}}{{end}}<tr><td>send lateness p99 / max{{with .S.Run.Limits}} (limit {{.MaxLatenessMS}} ms){{end}}</td><td>{{ms .S.Lateness.P99}} / {{ms .S.Lateness.Max}} ms</td></tr>
<tr><td>requests held at the client's own limit{{with .S.Client.Limit}} ({{.}} in flight){{end}}; backlog p99 / max</td><td{{if .S.Client.Held}} class="bad"{{end}}>{{.S.Client.Held}}; {{ms .S.Client.Backlog.P99}} / {{ms .S.Client.Backlog.Max}} ms</td></tr>
<tr><td>requests failed on the client's own limits (not the endpoint's)</td><td{{if .S.Client.Errors}} class="bad"{{end}}>{{.S.Client.Errors}}</td></tr>
<tr><td>prefix cache hit rate from usage: cached / reported prompt tokens</td><td>{{pct .S.Cache.HitPct}} ({{.S.Cache.CachedTokens}} / {{.S.Cache.PromptTokens}})</td></tr>
{{with .S.Cache.Server}}<tr><td>prefix cache hit rate from the server's /metrics</td><td>{{pct $.S.Cache.ServerHitPct}} ({{.Scrapes}} scrapes, {{.Failures}} failed)</td></tr>
{{end}}{{with .S.Cache.Ideal}}<tr><td>ideal prefix cache hit rate of the trace (infinite cache{{if .BlockSize}}, {{.BlockSize}}-token blocks{{end}})</td><td>{{pct $.S.Cache.IdealHitPct}}</td></tr>
{{with .Logged}}<tr><td>prefix cache hit rate the log itself records (its cached tokens over prompt tokens, {{.Requests}} requests)</td><td>{{pct $.S.Cache.LoggedHitPct}}</td></tr>
{{end}}{{end}}</table>
</details>

{{with .S.Run.Engine}}{{if .GPUs}}<h2 id="gpus">GPUs</h2>
<table>
<tr><th>GPU</th><th>exporter</th><th>scrapes</th><th>mean utilization</th><th>mean power</th><th>most memory used</th></tr>
{{range .GPUs}}<tr><td>{{.GPU}}</td><td>{{.Exporter}}</td><td>{{.Scrapes}}</td><td>{{with .MeanUtilPct}}{{f1 .}}%{{else}}n/a{{end}}</td><td>{{with .MeanPowerW}}{{f1 .}} W{{else}}n/a{{end}}</td><td>{{with .MaxMemUsedMiB}}{{f1 .}} MiB{{else}}n/a{{end}}</td></tr>
{{end}}</table>
<p class="note">{{with .EnergyJPerOutputToken}}Energy per output token: {{f3 .}} J, the GPUs' power draw integrated over the measured run, over its output tokens.{{else}}No energy per output token: no GPU had two power readings, or the run produced no output.{{end}}</p>
{{end}}{{end}}{{with .S.Cost}}<h2>Cost at this operating point</h2>
<table>
<tr><th>price</th><th>per million output tokens</th>{{if $.S.Goodput}}<th>counting only output within SLO</th>{{end}}</tr>
<tr><td>{{.GPUs}} GPUs at {{f2 .PerGPUHour}} an hour</td><td>{{money .PerMOutputTokens}}</td>{{if $.S.Goodput}}<td>{{money .PerMOutputTokensSLO}}</td>{{end}}</tr>
</table>
{{end}}
<h2>Errors</h2>
{{if .Errors}}<table>
<tr><th>class</th><th>requests</th><th style="text-align:left">first message</th></tr>
{{range .Errors}}<tr><td>{{.Class}}</td><td>{{.Count}}</td><td style="text-align:left">{{.Sample}}</td></tr>
{{end}}</table>{{else}}<p class="note">No request failed.</p>{{end}}

` + FiguresHTML
