package synth

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/synth/tokenizer"
	"github.com/llm-replay/replay/trace"
)

// maxRepairs bounds the attempts to make one prompt round-trip exactly.
const maxRepairs = 16

// Builder turns records into requests one at a time. It keeps the block first-word choices and
// the session state, so records must be given in trace order; Build and Stream are not safe for
// concurrent use (Stream verifies in parallel internally).
type Builder struct {
	tok    tokenizer.Tokenizer
	cfg    Config
	v      *vocab
	blocks *blockSet
	tpl    *chat.Renderer // for the chat API

	// overhead is the chat template's token count beyond the messages' content, by number of
	// messages; overrideSet replaces it with a calibrated fixed value.
	overhead    map[int]int
	override    int
	overrideSet bool

	// toolCost caches toolsOverhead by tool set (the tools JSON as sent).
	toolCost map[string]int
	// chatTools caches recordTools' conversions by API and tools.
	chatTools map[string]json.RawMessage

	sessions map[string]*session
	next     int
	// images are the stand-ins built for logged images (media.go), clips those for logged
	// audio (audio.go).
	images imageCache
	clips  audioCache

	mu    sync.Mutex // guards stats (verification runs on several goroutines)
	stats Stats
}

// New prepares a builder for tok: it finds the tokenizer's pool of single-token words and, for
// the chat API, parses the chat template.
func New(tok tokenizer.Tokenizer, cfg Config) (*Builder, error) {
	if tok == nil {
		return nil, errors.New("synth: no tokenizer")
	}
	if cfg.API == "" {
		cfg.API = APICompletions
	}
	if !validAPI(cfg.API) {
		return nil, fmt.Errorf("synth: unknown API %q (want chat, completions, responses, messages or embeddings)", cfg.API)
	}
	if cfg.BlockSize < 0 || cfg.MaxPromptTokens < 0 {
		return nil, fmt.Errorf("synth: block size %d and max prompt tokens %d must not be negative", cfg.BlockSize, cfg.MaxPromptTokens)
	}
	v, err := buildVocab(tok)
	if err != nil {
		return nil, err
	}
	b := &Builder{
		tok:       tok,
		cfg:       cfg,
		v:         v,
		blocks:    newBlockSet(cfg.Seed, len(v.word)),
		overhead:  map[int]int{},
		toolCost:  map[string]int{},
		chatTools: map[string]json.RawMessage{},
		sessions:  map[string]*session{},
	}
	if chatFamily(cfg.API) {
		if b.tpl, err = chat.NewRenderer(cfg.Chat); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// SetChatOverhead replaces the rendered template's overhead (tokens the server adds around one
// user message's content) with n, measured on the real server by a probe request, for servers
// whose template differs from tokenizer_config.json's. Later turns of a session add what our
// template adds per message on top. The server's count is then trusted, not verified: Prompt
// and PromptIDs stay our rendering, and len(PromptIDs) may differ from TargetPromptTokens.
func (b *Builder) SetChatOverhead(n int) error {
	if n < 0 {
		return fmt.Errorf("synth: chat overhead %d must not be negative", n)
	}
	b.override, b.overrideSet = n, true
	return nil
}

// ChatOverhead returns the tokens the chat template adds around one user message (the fixed
// cost a chat prompt pays), or the override when one is set.
func (b *Builder) ChatOverhead() (int, error) {
	if b.tpl == nil {
		return 0, errors.New("synth: the builder is not for the chat API")
	}
	return b.chatOverhead(1)
}

// Stats returns the counts so far.
func (b *Builder) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stats
	s.SiblingClashes = b.blocks.clashes
	return s
}

// Build synthesizes the request for the next record.
func (b *Builder) Build(rec trace.Record) (Request, error) {
	j, err := b.plan(rec)
	if err != nil {
		return Request{}, err
	}
	return b.verify(j)
}

// job is a planned request: its words are chosen; verification turns them into checked ids.
type job struct {
	req   Request
	segs  [][]int32 // completions: one; chat: one per message; an embeddings batch: one per input
	roles []string
	// inputs are an embeddings batch's inputs' token counts (nil otherwise).
	inputs []int
	tools  json.RawMessage // chat: the tools the template renders, nil for none
	// media is the prompt tokens of the record's images by the target rule (planMedia).
	media int
}

func where(rec trace.Record, index int) string {
	if rec.Source != "" {
		return fmt.Sprintf("%s:%d", rec.Source, rec.Line)
	}
	return fmt.Sprintf("record %d", index)
}

// plan chooses the words of the next record's prompt. It runs sequentially (it updates the
// block and session state); no encoding of the prompt happens here.
func (b *Builder) plan(rec trace.Record) (*job, error) {
	index := b.next
	at := where(rec, index)
	target := rec.PromptTokens
	if target <= 0 {
		return nil, fmt.Errorf("%s: prompt_tokens %d: a prompt needs at least one token", at, target)
	}
	if err := b.checkAPI(rec, at); err != nil {
		return nil, err
	}
	if batch := inputBatch(rec, b.apiOf(rec)); batch != nil {
		return b.planInputs(rec, index, batch, at)
	}
	capped := b.cfg.MaxPromptTokens > 0 && target > b.cfg.MaxPromptTokens
	if capped {
		target = b.cfg.MaxPromptTokens
	}
	j := &job{req: Request{
		Index:              index,
		Record:             rec,
		API:                b.apiOf(rec),
		TargetPromptTokens: target,
		MaxTokens:          outputCap(rec, b.apiOf(rec)),
		Capped:             capped,
	}}
	text, err := b.planMedia(j, rec, at)
	if err != nil {
		return nil, err
	}
	if j.tools, err = b.recordTools(rec); err != nil {
		return nil, fmt.Errorf("%s: field \"tools\": %w", at, err)
	}
	cont, restarted, err := b.continueSession(j, rec, text)
	if err != nil {
		return nil, err
	}
	if !cont {
		fixed, err := b.RecordOverhead(rec)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", at, err)
		}
		n := text - fixed
		if n < 1 {
			return nil, fmt.Errorf("%s: prompt_tokens %d leaves no room for content: the %s adds %d tokens by itself", at, target, b.overheadName(rec), fixed)
		}
		words, used, err := b.content(rec, index, n, at)
		if err != nil {
			return nil, err
		}
		j.segs = [][]int32{words}
		j.roles = []string{"user"}
		j.req.BlockHashes = used
	}
	b.rememberSession(j, rec)
	b.count(capped, cont, restarted)
	return j, nil
}

// count moves on to the next record and counts what its plan had to do.
func (b *Builder) count(capped, cont, restarted bool) {
	b.next++
	b.mu.Lock()
	b.stats.Requests++
	if capped {
		b.stats.Capped++
	}
	if cont {
		b.stats.SessionTurns++
	}
	if restarted {
		b.stats.SessionRestarts++
	}
	b.mu.Unlock()
}

func (b *Builder) overheadName(rec trace.Record) string {
	if b.templated(rec) {
		return "chat template"
	}
	return "tokenizer's post-processor"
}

// fixedOverhead is the count of tokens the server adds to the content of msgs messages of
// rec's API: the chat template's, or the tokenizer's specials around one text.
func (b *Builder) fixedOverhead(rec trace.Record, msgs int) (int, error) {
	if b.templated(rec) {
		return b.chatOverhead(msgs)
	}
	return b.textOverhead(), nil
}

// textOverhead is the tokenizer's specials around a completions or embeddings text.
func (b *Builder) textOverhead() int { return len(b.v.prefix) + len(b.v.suffix) }

// chatOverhead renders a probe conversation of msgs short messages and counts what the template
// adds; the template's text does not depend on the content's words, so this is exact for any
// content made of pool words (verify checks it on every prompt anyway).
func (b *Builder) chatOverhead(msgs int) (int, error) {
	if b.overrideSet {
		// The calibrated value covers one user message; later turns add what our template
		// adds per message pair.
		one, err := b.renderedOverhead(1)
		if err != nil {
			return 0, err
		}
		many, err := b.renderedOverhead(msgs)
		if err != nil {
			return 0, err
		}
		return b.override + many - one, nil
	}
	return b.renderedOverhead(msgs)
}

// renderedOverhead is chatOverhead measured on our chat template.
func (b *Builder) renderedOverhead(msgs int) (int, error) {
	if o, ok := b.overhead[msgs]; ok {
		return o, nil
	}
	rendered, err := b.tpl.Render(b.probe(msgs))
	if err != nil {
		return 0, err
	}
	o := len(b.tok.Encode(rendered, false)) - probeWords*msgs
	b.overhead[msgs] = o
	return o, nil
}

// probeWords is the length of each probe message's content.
const probeWords = 8

// probe is a conversation of msgs short messages of pool words, ending with the user's, for
// measuring what a template adds around content.
func (b *Builder) probe(msgs int) []chat.Message {
	var conv []chat.Message
	for i := range msgs {
		words := appendWords(nil, b.cfg.Seed, domainRepair, i, probeWords, len(b.v.word))
		_, text := b.v.render(words)
		conv = append(conv, chat.Message{Role: roleAt(i, msgs), Content: text})
	}
	return conv
}

// roleAt alternates user and assistant so that the last of n messages is the user's.
func roleAt(i, n int) string {
	if (n-1-i)%2 == 0 {
		return "user"
	}
	return "assistant"
}

// content chooses n words for a fresh prompt: the blocks of the record's hashes that fit, then
// a tail unique to this request.
func (b *Builder) content(rec trace.Record, index, n int, at string) ([]int32, []uint64, error) {
	words := make([]int32, 0, n)
	var used []uint64
	p := parent{root: true}
	if len(rec.BlockHashes) > 0 {
		bs := b.cfg.BlockSize
		if bs <= 0 {
			bs = rec.BlockSize
		}
		if bs <= 0 {
			return nil, nil, fmt.Errorf("%s: the record has block hashes but no block size (set --block-size)", at)
		}
		for _, h := range rec.BlockHashes {
			if len(words) >= n {
				break
			}
			words = b.blocks.appendBlock(words, p, h, min(bs, n-len(words)))
			used = append(used, h)
			p = parent{hash: h}
		}
	}
	if rest := n - len(words); rest > 0 {
		var first int32
		if len(rec.BlockHashes) > 0 {
			// Keep the tail apart from other blocks and tails after the same prefix.
			first = b.blocks.tailFirstWord(p, index)
		} else {
			r := newRNG(key(b.cfg.Seed, domainTail, uint64(index), 1<<32))
			first = int32(r.below(len(b.v.word)))
		}
		words = append(words, first)
		words = appendWords(words, b.cfg.Seed, domainTail, index, rest-1, len(b.v.word))
	}
	return words, used, nil
}

// verify renders the planned words, encodes the result as the server will and makes it exact:
// the ids must be the planned ones and their count the target. It is safe to run concurrently
// for different jobs.
func (b *Builder) verify(j *job) (Request, error) {
	switch {
	case j.inputs != nil:
		return b.verifyInputs(j)
	case chatFamily(j.req.API):
		return b.verifyChat(j)
	}
	return b.verifyCompletions(j)
}

func (b *Builder) verifyCompletions(j *job) (Request, error) {
	r := j.req
	text, ids, repaired, err := b.exactText(j.segs[0], r.TargetPromptTokens, r.Index, where(r.Record, r.Index))
	if err != nil {
		return r, err
	}
	r.Prompt, r.PromptIDs = text, ids
	if repaired {
		b.mu.Lock()
		b.stats.Repaired++
		b.mu.Unlock()
	}
	return r, nil
}

// exactText renders words as one text the server encodes with its specials, repaired until
// the encoding is exactly the planned ids and target tokens long.
func (b *Builder) exactText(words []int32, target, index int, at string) (string, []int, bool, error) {
	repaired := false
	for attempt := 0; ; attempt++ {
		text := b.v.renderText(words)
		got := b.tok.Encode(text, true)
		d := b.v.firstDiffWords(got, words)
		if d < 0 {
			if len(got) != target {
				return "", nil, repaired, fmt.Errorf("%s: internal: prompt has %d tokens, want %d", at, len(got), target)
			}
			return text, got, repaired, nil
		}
		if attempt == maxRepairs {
			return "", nil, repaired, fmt.Errorf("%s: the prompt does not survive re-encoding at token %d after %d repairs", at, d, maxRepairs)
		}
		words = b.repair(words, d-len(b.v.prefix), index, attempt)
		repaired = true
	}
}

// repair replaces the words at and before position i (a round-trip mismatch) with others.
func (b *Builder) repair(words []int32, i, index, attempt int) []int32 {
	words = slices.Clone(words)
	i = max(0, min(i, len(words)-1))
	r := newRNG(key(b.cfg.Seed, domainRepair, uint64(index), uint64(attempt), uint64(i)))
	for k := max(0, i-1); k <= i; k++ {
		words[k] = int32(r.below(len(b.v.word)))
	}
	return words
}

func (b *Builder) verifyChat(j *job) (Request, error) {
	r := j.req
	segs := make([][]int32, len(j.segs))
	copy(segs, j.segs)
	repaired, adjusted := false, false
	for attempt := 0; ; attempt++ {
		if attempt > maxRepairs {
			return r, fmt.Errorf("%s: the chat prompt could not be made exact after %d attempts", where(r.Record, r.Index), maxRepairs)
		}
		msgs := make([]chat.Message, len(segs))
		segIDs := make([][]int, len(segs))
		for i, s := range segs {
			ids, text := b.v.render(s)
			segIDs[i] = ids
			msgs[i] = chat.Message{Role: j.roles[i], Content: text}
		}
		rendered, err := b.render(msgs, j.tools)
		if err != nil {
			return r, fmt.Errorf("%s: %w", where(r.Record, r.Index), err)
		}
		got := b.tok.Encode(rendered, false)
		// Every message's words must appear, in order, as exactly the planned ids.
		pos, bad := 0, false
		for i, ids := range segIDs {
			at := indexFrom(got, ids, pos)
			if at >= 0 {
				pos = at + len(ids)
				continue
			}
			start := slices.Index(got[pos:], ids[0])
			d := 0
			if start >= 0 {
				d = max(0, firstDiff(got[pos+start:], ids))
			}
			segs[i] = b.repair(segs[i], d, r.Index, attempt)
			repaired, bad = true, true
			break
		}
		if bad {
			continue
		}
		text, err := b.textTokens(msgs, j.tools, r.Record, segs[len(segs)-1], got)
		if err != nil {
			return r, fmt.Errorf("%s: %w", where(r.Record, r.Index), err)
		}
		if diff := text + j.media - r.TargetPromptTokens; diff != 0 && !b.overrideSet {
			last := segs[len(segs)-1]
			if len(last)-diff < 1 {
				return r, fmt.Errorf("%s: prompt_tokens %d is too short for the rendered chat template", where(r.Record, r.Index), r.TargetPromptTokens)
			}
			if diff > 0 {
				last = last[:len(last)-diff]
			} else {
				last = appendWords(slices.Clone(last), b.cfg.Seed, domainRepair, r.Index<<8|attempt, -diff, len(b.v.word))
			}
			segs[len(segs)-1] = last
			adjusted = true
			continue
		}
		r.Prompt, r.PromptIDs, r.Messages, r.TextTokens = rendered, got, msgs, len(got)
		break
	}
	if len(r.Record.Media) > 0 {
		last := len(r.Messages) - 1
		parts, err := b.mediaParts(r.Record, segs[last], r.Index)
		if err != nil {
			return r, fmt.Errorf("%s: %w", where(r.Record, r.Index), err)
		}
		r.Messages[last].Parts, r.MediaTokens = parts, j.media
	}
	b.countFixes(repaired, adjusted)
	return r, nil
}

// countFixes counts a prompt that needed repairs or an adjusted length in the stats.
func (b *Builder) countFixes(repaired, adjusted bool) {
	if repaired || adjusted {
		b.mu.Lock()
		if repaired {
			b.stats.Repaired++
		}
		if adjusted {
			b.stats.Adjusted++
		}
		b.mu.Unlock()
	}
}

// indexFrom returns the first index >= from where sub occurs in s, or -1.
func indexFrom(s, sub []int, from int) int {
	if len(sub) == 0 {
		return from
	}
	for i := from; i+len(sub) <= len(s); i++ {
		if s[i] == sub[0] && slices.Equal(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}
