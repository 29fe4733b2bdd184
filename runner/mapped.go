package runner

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/routing"
	"github.com/llm-replay/replay/sim"
	"github.com/llm-replay/replay/synth"
	"github.com/llm-replay/replay/synth/tokenizer"
	"github.com/llm-replay/replay/trace"
)

// mapped.go builds a --model-map run's prompts: each request for the model it is sent to,
// with that model's tokenizer, chat template and image rule, so the served model counts
// exactly the logged length whatever tokenizer its neighbours use. A builder is made per
// tokenizer (a synth.Builder holds one), each given its records in log order; the built
// requests are merged back into the log's order.

// modelTok is a served model's tokenizer: where it was found and the loaded one.
type modelTok struct {
	path string
	tok  tokenizer.Tokenizer
	// adapter: the served name is a LoRA adapter's (the simulator serves it as one).
	adapter bool
}

// mapModels resolves each target's tokenizer (its own, else the run's: p.tokPath) into
// p.models, by served name, for the prompts and the simulator.
func (p *plan) mapModels(ctx context.Context, cfg Config) error {
	m := cfg.Routing.ModelMap
	p.models = map[string]modelTok{}
	loaded := map[string]tokenizer.Tokenizer{p.tokPath: p.tok}
	for _, t := range m.Targets() {
		path := p.tokPath
		if t.Tokenizer != "" {
			var err error
			if path, err = FindTokenizer(ctx, t.Tokenizer, cfg.Stderr); err != nil {
				return fmt.Errorf("--model-map: %s: tokenizer: %w", t.Served(), err)
			}
		}
		tok, ok := loaded[path]
		if !ok {
			var err error
			if tok, err = tokenizer.Load(path); err != nil {
				return fmt.Errorf("--model-map: %s: tokenizer: %w", t.Served(), err)
			}
			loaded[path] = tok
		}
		if prev, dup := p.models[t.Served()]; dup && prev.path != path {
			return fmt.Errorf("--model-map: %s is served with two tokenizers, %s and %s", t.Served(), prev.path, path)
		}
		p.models[t.Served()] = modelTok{path, tok, t.Adapter != ""}
	}
	return nil
}

// buildMapped builds recs, each with its target's tokenizer, in the log's order.
func (p *plan) buildMapped(ctx context.Context, cfg Config, recs []trace.Record) ([]synth.Request, error) {
	byPath := map[string][]int{}
	var paths []string
	for i := range recs {
		t, _ := cfg.Routing.ModelMap.Target(recs[i].Model)
		path := p.models[t.Served()].path
		if _, seen := byPath[path]; !seen {
			paths = append(paths, path)
		}
		byPath[path] = append(byPath[path], i)
	}
	type placed struct {
		at  int
		req synth.Request
	}
	var all []placed
	for _, path := range paths {
		pos := byPath[path]
		reqs, err := p.buildWith(ctx, cfg, path, pick(recs, pos))
		if err != nil {
			return nil, err
		}
		// fitChat may leave records out (--on-error skip): the rest are in order.
		j := 0
		for _, r := range reqs {
			for j < len(pos) && (recs[pos[j]].Line != r.Record.Line || recs[pos[j]].Timestamp != r.Record.Timestamp) {
				j++
			}
			all = append(all, placed{pos[min(j, len(pos)-1)], r})
			j++
		}
		fmt.Fprintf(cfg.Stderr, "replay: built %d prompts with %s\n", len(reqs), path)
	}
	slices.SortStableFunc(all, func(a, b placed) int { return a.at - b.at })
	out := make([]synth.Request, len(all))
	for i, a := range all {
		out[i] = a.req
		out[i].Index = i // the position in the plan, as the scheduler and the rows count it
	}
	return out, nil
}

// buildWith builds recs with the tokenizer at path, its chat template and image rule.
func (p *plan) buildWith(ctx context.Context, cfg Config, path string, recs []trace.Record) ([]synth.Request, error) {
	tok := p.tok
	for _, m := range p.models {
		if m.path == path {
			tok = m.tok
		}
	}
	scfg := p.synth
	var err error
	if scfg.Chat, err = chat.LoadTemplate(path); err != nil {
		return nil, err
	}
	if err := SetImageRule(&scfg, path, tok, cfg.Ingest.ImageTokens); err != nil {
		return nil, err
	}
	if err := SetAudioRule(&scfg, path, tok, cfg.Ingest.AudioTokensPerSecond); err != nil {
		return nil, err
	}
	if err := checkAudioRule(scfg, recs); err != nil {
		return nil, err
	}
	if len(recs) > 0 { // the base model's media count: its adapters share its encoder
		t, _ := cfg.Routing.ModelMap.Target(recs[0].Model)
		if err := probeFor(ctx, cfg, &scfg, t.Model, recs); err != nil {
			return nil, err
		}
	}
	skip := cfg.Ingest.OnError == ingest.OnErrorSkip
	b, kept, err := newBuilder(tok, scfg, recs, skip, cfg.Stderr)
	if err != nil {
		return nil, err
	}
	return buildAll(ctx, b, scfg, kept, cfg.SendIDs)
}

// pick is recs at the positions pos, in that order.
func pick(recs []trace.Record, pos []int) []trace.Record {
	out := make([]trace.Record, len(pos))
	for i, at := range pos {
		out[i] = recs[at]
	}
	return out
}

// simModels has the simulator serve a --model-map run's models, each counted by its own
// tokenizer as its prompts were built, --image-tokens and --audio-tokens-per-second as for the
// run's.
func simModels(sc *sim.Config, p *plan, imageTokens int, audioRate float64) error {
	names := make([]string, 0, len(p.models))
	for n := range p.models {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		m, err := SimModel(n, p.models[n].path, p.models[n].tok)
		if err != nil {
			return err
		}
		m.Adapter = p.models[n].adapter
		if imageTokens > 0 {
			m.Images = media.Fixed(imageTokens)
		}
		if audioRate > 0 {
			m.Audio = media.TokensPerSecond(audioRate)
		}
		sc.Models = append(sc.Models, m)
	}
	return nil
}

// SimModel is one more model for the simulator to serve as name, counting as ServerCounting
// does with the tokenizer tok found at tokPath (replay sim --serve, and a --model-map run's
// built-in simulator).
func SimModel(name, tokPath string, tok tokenizer.Tokenizer) (sim.Model, error) {
	var mc sim.Config
	if err := ServerCounting(tokPath, tok, &mc); err != nil {
		return sim.Model{}, fmt.Errorf("the simulator's model %s: %w", name, err)
	}
	return sim.Model{Name: name, Tokenizer: mc.Tokenizer, TokenizerSHA256: mc.TokenizerSHA256,
		Counter: mc.Counter, ChatCounter: mc.ChatCounter, Tokenize: mc.Tokenize, Images: mc.Images, Audio: mc.Audio}, nil
}

// writeModels is the dry run's account of the models the window's requests name, with their
// counts and, under a --model-map, what each is sent as and counted by; nothing when no
// request names one.
func writeModels(w io.Writer, recs []trace.Record, m *routing.Map, p *plan) {
	counts := routing.Models(recs)
	if len(counts) == 1 && counts[0].Model == "" {
		return
	}
	for i, c := range counts {
		head := "           "
		if i == 0 {
			head = "  models   "
		}
		name := c.Model
		if name == "" {
			name = "(none logged)"
		}
		line := fmt.Sprintf("%s %s: %d requests", head, name, c.Requests)
		if m != nil {
			if t, ok := m.Target(c.Model); ok {
				line += fmt.Sprintf(" -> %s (counted by %s)", t.Served(), p.models[t.Served()].path)
			}
		}
		fmt.Fprintln(w, line)
	}
}
