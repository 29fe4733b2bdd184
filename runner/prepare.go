package runner

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"time"

	"github.com/llm-replay/replay/analysis"
	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/engine"
	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/samples"
	"github.com/llm-replay/replay/scheduler"
	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/synth/tokenizer"
	"github.com/llm-replay/replay/trace"
)

// plan is everything prepared before the clock starts: the window's prompts, built and
// verified, the warmup's, and the trace's ideal prefix-cache figures.
type plan struct {
	trace   string          // the trace's name for messages and the summary
	input   *analysis.Input // what the log gave (nil for the default workload)
	tokPath string
	tok     tokenizer.Tokenizer
	synth   synth.Config
	slo     analysis.SLO
	reqs    []synth.Request
	warm    []synth.Request
	ideal   *analysis.IdealCache
	// stream, when set, builds the window's prompts as the run goes (stream_plan.go): reqs is
	// then nil, the window is stream.recs (count, record), and the sender takes each built
	// request at its send.
	stream *streamSource
	// logged: each request is sent with its logged options (--options); verbatim: with its
	// logged body (--body verbatim), so its prompt is not synthesized.
	logged, verbatim bool
	// resume, under Config.Resume, is the killed run the plan goes on from (resume.go): only
	// its unsent requests are sent, with no warmup.
	resume *resumeState
	// models are a --model-map run's served models, each with the tokenizer its prompts are
	// built and counted by (mapped.go); nil without a map.
	models map[string]modelTok
	// media serves the stand-ins of images logged as URLs (--media-listen); nil when none is.
	media *mediaServer
}

// items is the measured schedule: the plan's requests, or a streamed plan's records, whose
// built requests the senders take from the stream (stream_plan.go) and which carry no payload.
func (p *plan) items() ([]scheduler.Item, time.Duration) {
	if p.stream == nil {
		return scheduleItems(p.reqs, false)
	}
	items := make([]scheduler.Item, len(p.stream.recs))
	var span time.Duration
	for i := range p.stream.recs {
		r := &p.stream.recs[i]
		items[i] = scheduler.Item{Index: i, Timestamp: r.Timestamp, SessionID: r.SessionID, Turn: r.Turn}
		span = max(span, r.Timestamp)
	}
	return items, span
}

// count is the number of requests in the plan's window.
func (p *plan) count() int {
	if p.stream != nil {
		return len(p.stream.recs)
	}
	return len(p.reqs)
}

// record is the window's i-th record.
func (p *plan) record(i int) *trace.Record {
	if p.stream != nil {
		return &p.stream.recs[i]
	}
	return &p.reqs[i].Record
}

// apiOf is the API the window's i-th request goes to: its built request's, else its record's
// own or def.
func (p *plan) apiOf(i int, def string) string {
	if p.stream == nil && p.reqs[i].API != "" {
		return string(p.reqs[i].API)
	}
	return string(synth.RecordAPI(*p.record(i), synth.API(def)))
}

// prepare reads the trace window and builds every prompt, so that the send path does no
// tokenizer work; with mayStream, a window whose prompts would hold more memory than
// cfg.PlanMemory allows is left to build as the run goes (a plan that is sent once).
func prepare(ctx context.Context, cfg Config, mayStream bool) (*plan, error) {
	p := &plan{slo: cfg.SLO}
	var err error
	if p.tokPath, err = resolveTokenizer(ctx, cfg, nil); err != nil {
		return nil, err
	}
	if p.tok, err = tokenizer.Load(p.tokPath); err != nil {
		return nil, fmt.Errorf("--tokenizer: %w", err)
	}
	if cfg.Ingest.LoggedModel, err = FindLoggedModel(ctx, cfg.Ingest.LoggedModel, cfg.Stderr); err != nil {
		return nil, err
	}
	name, recs, input, err := resolveTrace(cfg, p.tokPath)
	if err != nil {
		return nil, err
	}
	p.trace, p.input = name, input
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no records in the selected window", name)
	}
	sayRouting(cfg.Stderr, cfg.Routing, recs)
	if m := cfg.Routing.ModelMap; m != nil {
		if err := m.Unmapped(recs); err != nil {
			return nil, err // every unmapped model named before anything is built or sent
		}
		if err := p.mapModels(ctx, cfg); err != nil {
			return nil, err
		}
	}
	if cfg.UniquePrefixes {
		makeUnique(recs)
	}
	if p.logged, err = resolveOptions(cfg, recs); err != nil {
		return nil, err
	}
	p.verbatim = cfg.Body == BodyVerbatim
	if cfg.APIOverride {
		overrideAPI(cfg.Stderr, recs, cfg.Client.API)
	}
	p.synth = cfg.Synth
	p.synth.API = synth.API(cfg.Client.API)
	p.synth.Tools = p.logged // the logged tools are sent, so the template renders them
	if p.synth.Chat, err = chat.LoadTemplate(p.tokPath); err != nil {
		return nil, err
	}
	if err := SetImageRule(&p.synth, p.tokPath, p.tok, cfg.Ingest.ImageTokens); err != nil {
		return nil, err
	}
	if err := SetAudioRule(&p.synth, p.tokPath, p.tok, cfg.Ingest.AudioTokensPerSecond); err != nil {
		return nil, err
	}
	if err := checkAudioRule(p.synth, recs); err != nil {
		return nil, err
	}
	if err := p.mediaText(ctx, cfg, recs); err != nil {
		return nil, err
	}
	if err := p.probeMedia(ctx, cfg, recs); err != nil {
		return nil, err
	}
	if err := p.serveMedia(cfg, recs); err != nil {
		return nil, err
	}
	sayImages(cfg.Stderr, recs, p.synth.MediaURL)
	sayAudio(cfg.Stderr, recs)
	if p.reqs, err = p.requests(ctx, cfg, recs, mayStream); err != nil {
		return nil, err
	}
	if !p.verbatim {
		sayPrefixSharing(cfg.Stderr, recs)
	}
	if p.stream == nil { // a streamed plan's ideal cache is counted as it builds
		p.ideal = idealCache(p.reqs, p.synth.BlockSize)
	}
	if p.warm, err = p.warmup(ctx, cfg, recs); err != nil {
		return nil, fmt.Errorf("warmup: %w", err)
	}
	return p, nil
}

// requests builds the window's requests: prompts synthesized to the records' lengths, or
// under --body verbatim the records alone, whose logged bodies are sent.
func (p *plan) requests(ctx context.Context, cfg Config, recs []trace.Record, mayStream bool) ([]synth.Request, error) {
	if p.verbatim {
		fmt.Fprintf(cfg.Stderr, "replay: --body verbatim: sending %d logged bodies as they were (model replaced); lengths are the engine's own\n", len(recs))
		return recordRequests(recs), nil
	}
	if p.models != nil { // built before the run: a streamed plan holds one builder
		return p.buildMapped(ctx, cfg, recs)
	}
	skip := cfg.Ingest.OnError == ingest.OnErrorSkip
	b, recs, err := newBuilder(p.tok, p.synth, recs, skip, cfg.Stderr)
	if err != nil {
		return nil, err
	}
	if need, budget := planMemory(recs, p.synth.API), streamBudget(cfg.PlanMemory, memoryBudget(cfg.Memory)); mayStream && budget > 0 && need > budget {
		p.stream = &streamSource{builder: b, recs: recs, budget: budget}
		fmt.Fprintf(cfg.Stderr, "replay: the window's %d prompts would hold about %.1f GiB: building them with %s as the run goes, %v of the run (at most %.0f MiB) ahead of their sends (--plan-memory)\n",
			len(recs), float64(need)/(1<<30), p.tokPath, streamLead, float64(budget)/(1<<20))
		return nil, nil
	}
	fmt.Fprintf(cfg.Stderr, "replay: building %d prompts with %s\n", len(recs), p.tokPath)
	return buildAll(ctx, b, p.synth, recs, cfg.SendIDs)
}

// recordRequests are the records as requests without prompts: under --body verbatim their
// bodies are sent as logged, and their targets are the logged counts, for fidelity to compare
// the engine's with; in a streamed plan, they are the schedule the built requests fill.
func recordRequests(recs []trace.Record) []synth.Request {
	out := make([]synth.Request, len(recs))
	for i, r := range recs {
		out[i] = synth.Request{Index: i, Record: r, TargetPromptTokens: r.PromptTokens, MaxTokens: max(1, r.OutputTokens),
			BlockHashes: r.BlockHashes}
	}
	return out
}

// resolveTrace names the trace and reads its window: the --trace file, or without one the
// default workload, generated in memory.
func resolveTrace(cfg Config, tokPath string) (string, []trace.Record, *analysis.Input, error) {
	if cfg.Trace != "" {
		recs, input, err := readWindow(cfg.Trace, tokPath, cfg)
		return cfg.Trace, recs, input, err
	}
	fmt.Fprintf(cfg.Stderr, "replay: no --trace given: replaying the default workload, %s\n", DefaultWorkload)
	recs, err := defaultWindow(cfg)
	return DefaultWorkload, recs, nil, err
}

// resolveTokenizer is the tokenizer to count with: --tokenizer (a path, or a Hugging Face
// repository id, FindTokenizer), else against an endpoint the one it names for its model
// (servedTokenizer, from served, its /v1/models answer, when the caller has it), else the
// embedded sample against the simulator.
func resolveTokenizer(ctx context.Context, cfg Config, served *engine.Served) (string, error) {
	if cfg.Tokenizer != "" {
		return FindTokenizer(ctx, cfg.Tokenizer, cfg.Stderr)
	}
	if cfg.Client.BaseURL != "" {
		return servedTokenizer(ctx, cfg, served)
	}
	p, err := samples.Extract(samples.Tokenizer, filepath.Join(cfg.Out, ".sample"))
	if err != nil {
		return "", err
	}
	fmt.Fprintf(cfg.Stderr, "replay: no --tokenizer given: counting with the embedded sample tokenizer (Mistral-7B 32k) against the simulator\n")
	return p, nil
}

// warmup builds cfg.Warmup throwaway requests of the trace's own shapes: other text (another
// seed), no sessions and prefixes of their own, so they warm the endpoint without caching
// anything the measured requests will ask for.
func (p *plan) warmup(ctx context.Context, cfg Config, recs []trace.Record) ([]synth.Request, error) {
	if cfg.Warmup <= 0 {
		return nil, nil
	}
	wcfg := p.synth
	wcfg.Seed = p.synth.Seed ^ 0x5741524d5550 // "WARMUP"
	wrecs := make([]trace.Record, 0, cfg.Warmup)
	for i := 0; i < cfg.Warmup && i < len(recs); i++ {
		r := recs[i]
		r.SessionID, r.Turn = "", 0
		if r.Options != nil {
			// A logged body would send the measured requests' own text ahead of them.
			o := *r.Options
			o.Body = nil
			r.Options = &o
		}
		wrecs = append(wrecs, r)
	}
	makeUnique(wrecs)
	return build(ctx, p.tok, wcfg, wrecs, cfg.SendIDs, true, io.Discard)
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
func build(ctx context.Context, tok tokenizer.Tokenizer, scfg synth.Config, recs []trace.Record, sendIDs, skip bool, stderr io.Writer) ([]synth.Request, error) {
	b, recs, err := newBuilder(tok, scfg, recs, skip, stderr)
	if err != nil {
		return nil, err
	}
	return buildAll(ctx, b, scfg, recs, sendIDs)
}

// newBuilder is the prompt builder for recs, and the records it can build: for the chat API
// those longer than the template's own tokens (fitChat).
func newBuilder(tok tokenizer.Tokenizer, scfg synth.Config, recs []trace.Record, skip bool, stderr io.Writer) (*synth.Builder, []trace.Record, error) {
	b, err := synth.New(tok, scfg)
	if err != nil {
		return nil, nil, err
	}
	if recs, err = fitChat(b, scfg, recs, skip, stderr); err != nil {
		return nil, nil, err
	}
	return b, recs, nil
}

// eachRecord is Builder.Stream's source over recs: each in order, then io.EOF.
func eachRecord(recs []trace.Record) func() (trace.Record, error) {
	i := 0
	return func() (trace.Record, error) {
		if i == len(recs) {
			return trace.Record{}, io.EOF
		}
		i++
		return recs[i-1], nil
	}
}

// buildAll builds every one of recs with b, in order.
func buildAll(ctx context.Context, b *synth.Builder, scfg synth.Config, recs []trace.Record, sendIDs bool) ([]synth.Request, error) {
	out := make([]synth.Request, 0, len(recs))
	err := b.Stream(ctx, runtime.GOMAXPROCS(0), eachRecord(recs), func(r synth.Request) error {
		dropUnsentIDs(&r, sendIDs)
		out = append(out, r)
		return nil
	})
	return out, err
}

// dropUnsentIDs forgets the ids of a built prompt that is sent as text, so the run does not
// hold every prompt twice: chat-family prompts always are, completions unless --send-ids,
// embeddings inputs unless they were logged as token ids.
func dropUnsentIDs(r *synth.Request, sendIDs bool) {
	keep := r.API == synth.APICompletions && sendIDs
	if r.API == synth.APIEmbeddings {
		keep = r.Record.Options != nil && r.Record.Options.InputIDs
		if !keep {
			r.InputIDs = nil
		}
	}
	if !keep {
		r.PromptIDs = nil
	}
}

// fitChat handles records too short for the chat API: a chat template adds a fixed number of
// tokens, so a record with fewer prompt tokens than that cannot be replayed as chat. With skip
// they are left out and counted; otherwise the first one is an error that says what to do.
// A record whose request carries tools pays what the template renders for them too.
func fitChat(b *synth.Builder, scfg synth.Config, recs []trace.Record, skip bool, stderr io.Writer) ([]trace.Record, error) {
	var kept []trace.Record // nil until a record is left out: most windows keep every one, uncopied
	most := 0
	for i, r := range recs {
		fits := true
		if trace.ChatFamily(string(synth.RecordAPI(r, scfg.API))) { // completions and embeddings: the builder judges their lengths
			ov, err := b.RecordOverhead(r)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", r.Source, r.Line, err)
			}
			if fits = r.PromptTokens-r.MediaTokens() > ov; !fits && !skip { // the text's share
				return nil, fmt.Errorf("%s:%d: field \"prompt_tokens\": %d tokens, but the chat template alone adds %d (its tools included): replay it with --api completions --api-override, or leave such requests out with --on-error skip",
					r.Source, r.Line, r.PromptTokens, ov)
			}
			if !fits {
				most = max(most, ov)
			}
		}
		switch {
		case !fits && kept == nil:
			kept = append(make([]trace.Record, 0, len(recs)-1), recs[:i]...)
		case fits && kept != nil:
			kept = append(kept, r)
		}
	}
	if kept == nil {
		return recs, nil
	}
	if n := len(recs) - len(kept); n > 0 {
		fmt.Fprintf(stderr, "replay: left out %d requests with at most %d prompt tokens, the chat template's own size with their tools (--on-error skip)\n", n, most)
	}
	return kept, nil
}
