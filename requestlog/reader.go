package requestlog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llm-replay/replay/chat"
	"github.com/llm-replay/replay/ingest"
	"github.com/llm-replay/replay/media"
	"github.com/llm-replay/replay/synth/tokenizer"
	"github.com/llm-replay/replay/trace"
)

// DefaultBlockSize is the tokens per hashed block when Options.BlockSize is 0 (vLLM's KV block).
const DefaultBlockSize = 16

// segmentCacheBytes bounds each reader's cache of encoded text segments (see
// tokenizer.Cached): chat turns repeat their conversation so far, and conversations share system
// prompts, so most prompt text has been encoded before.
const segmentCacheBytes = 128 << 20

// maxKeptErrors bounds the rejection messages kept for the user.
const maxKeptErrors = 10

// Options says how to read a request log.
type Options struct {
	// Tokenizer is the served model's tokenizer (required) and Chat its chat template renderer
	// (required for chat requests; see LoadModel).
	Tokenizer tokenizer.Tokenizer
	Chat      *chat.Renderer
	// BlockSize is the tokens per hashed block; 0 means DefaultBlockSize.
	BlockSize int
	// HashKey keys the block hashes and the pseudonyms of logged session ids; nil means a fresh
	// random key, used for this reader only and never shown.
	HashKey []byte
	// Map overrides where fields sit in a line (see Fields), e.g. {"request": "body"}.
	Map map[string]string
	// TimeUnit is the unit of numeric timestamps: "s" (default), "ms", "us" or "ns".
	TimeUnit string
	// OnError is "fail" (default: the first bad line ends the read with its error) or "skip"
	// (the line goes to Quarantine and is counted).
	OnError    string
	Quarantine io.Writer
	// KeepText keeps the rendered prompt and the response text in each Request, and the
	// logged body and its tool and schema text in its Options. Without it no byte of the
	// prompt, the response or those descriptions leaves the reader (they are replaced by
	// synthetic text of the same token length); stop strings are kept either way.
	KeepText bool
	// Images counts each logged image's prompt tokens (ImageRule: the model's processor's rule,
	// or --image-tokens); nil makes a line with an image an error that ends the read, naming
	// ImagesErr (why the folder has no rule) and --image-tokens.
	Images    media.Rule
	ImagesErr error
	// Audio counts each logged clip's prompt tokens (AudioRule: the model's processor's rule,
	// or --audio-tokens-per-second); nil makes a line with a clip an error that ends the read,
	// naming AudioErr (why the folder has no rule) and the flag.
	Audio    media.AudioRule
	AudioErr error
	// ImageWidth and ImageHeight are the size of images logged by URL (--image-size); 0
	// makes such an image an error naming the flag.
	ImageWidth, ImageHeight int
	// Logged is the rule that counted the log's images (--logged-model); nil: the hosted
	// family the line's model names (media.LoggedRule), else Images.
	Logged media.Rule
}

// Request is one log line's record, with its text only when Options.KeepText is set.
type Request struct {
	trace.Record
	// UsagePromptTokens is the server's own prompt count from the log's usage, -1 when absent.
	UsagePromptTokens int
	// Prompt is the prompt as the server saw it (chat template applied) and Response the
	// generated text; both empty unless Options.KeepText.
	Prompt, Response string
}

// Counts is what a Reader did with the lines it saw.
type Counts struct {
	Records  int64 `json:"records"`
	Rejected int64 `json:"rejected"`
	// UsageMismatches counts records whose logged usage.prompt_tokens differs from our count:
	// the log's model or template is not the one given, or the server changed the prompt.
	UsageMismatches int64 `json:"usage_mismatches,omitempty"`
	// UsageChecked counts records that had usage.prompt_tokens to compare with.
	UsageChecked int64 `json:"usage_checked,omitempty"`
	// Images and Audio count the images and audio clips the records carry (trace.Record.Media).
	Images int64 `json:"images,omitempty"`
	Audio  int64 `json:"audio,omitempty"`
	// ImageRules counts the images each rule counted as logged, by the rule's name, a rule
	// taken for want of a model name that says which marked "(the served model's own)".
	ImageRules map[string]int64 `json:"image_rules,omitempty"`
	// ImagesSizeInferred counts the images logged by URL whose size was told from their
	// line's logged prompt tokens (trace.MediaPart.SizeInferred).
	ImagesSizeInferred int64 `json:"images_size_inferred,omitempty"`
	// Sessions counts the distinct conversations seen.
	Sessions int64 `json:"sessions,omitempty"`
	// CarriedFields counts, per name, the request body members carried as logged in
	// trace.Options.Fields (neither content nor a typed option): a replay sends them back.
	CarriedFields map[string]int64 `json:"carried_request_fields,omitempty"`
	// DroppedFields counts, per name, what a replay still does not send: members of
	// stream_options other than include_usage ("stream_options.NAME"), and max_tokens when
	// max_completion_tokens, which wins, is there too.
	DroppedFields map[string]int64 `json:"dropped_request_fields,omitempty"`
	// Errors holds the first rejection messages, for the user.
	Errors []string `json:"-"`
}

// Reader streams a request log as Requests, in log order. It is not safe for concurrent use.
type Reader struct {
	path    string
	f       io.Closer
	lines   func() ([]byte, error) // the next line (or Parquet row as JSON); io.EOF at the end
	opts    Options
	m       mapping
	unit    time.Duration
	hasher  *blockHasher    // pseudonyms (sequential stage)
	pool    []*blockHasher  // one per worker (block hashes)
	scratch []workerScratch // one per worker
	prompts *promptCache
	red     *redactor
	queue   []prepared // the current batch, prepared in parallel, handed out in order
	ended   error      // why reading stopped after the current batch, if it did
	ahead   chan batch // the next batch, being read and prepared; nil if none is
	// sawLine: a non-empty line was read (else the end of input is ingest.ErrEmpty). Only the
	// batch reader touches it, line and the line source.
	sawLine bool
	sess    *sessions
	chains  *chains
	turns   map[string]int // logged session id -> turns seen
	line    int64
	origin  time.Time
	last    time.Time
	begun   bool
	counts  Counts
	err     error
}

// LoadModel loads a tokenizer (a tokenizer.json file or its folder) and the chat template from
// the tokenizer_config.json beside it (chat.DefaultTemplate when there is none).
func LoadModel(path string) (tokenizer.Tokenizer, *chat.Renderer, error) {
	tok, err := tokenizer.Load(path)
	if err != nil {
		return nil, nil, err
	}
	r, err := chat.Load(path)
	if err != nil {
		return nil, nil, err
	}
	return tok, r, nil
}

// Open opens a request log for reading: JSON lines, or Parquet (detected by its magic number)
// whose rows hold the same fields as columns.
func Open(path string, opts Options) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("requestlog: %w", err)
	}
	var magic [4]byte
	n, _ := io.ReadFull(f, magic[:])
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("requestlog: %w", err)
	}
	if ingest.Compression(magic[:n]) != "" {
		// A compressed log (gzip or zstd, known by its content) is JSON lines: Parquet seeks.
		return openCompressed(f, path, opts)
	}
	r, err := NewReader(f, path, opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.f = f
	if n == 4 && string(magic[:]) == "PAR1" {
		if r.lines, err = parquetLines(f, path); err != nil {
			f.Close()
			return nil, err
		}
	}
	return r, nil
}

// openCompressed reads a compressed request log's JSON lines, decompressed as they are read.
func openCompressed(f *os.File, path string, opts Options) (*Reader, error) {
	content, err := ingest.Decompress(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("requestlog: %s: %w", path, err)
	}
	r, err := NewReader(content, path, opts)
	if err != nil {
		content.Close()
		return nil, err
	}
	r.f = content
	return r, nil
}

// NewReader reads a JSON-lines request log from src; name is used in error messages.
func NewReader(src io.Reader, name string, opts Options) (*Reader, error) {
	if opts.Tokenizer == nil {
		return nil, errors.New("requestlog: a tokenizer is required (--tokenizer)")
	}
	if hf, ok := opts.Tokenizer.(*tokenizer.HF); ok {
		opts.Tokenizer = hf.WithSegmentCache(segmentCacheBytes)
	}
	if opts.BlockSize == 0 {
		opts.BlockSize = DefaultBlockSize
	}
	if opts.BlockSize < 0 {
		return nil, fmt.Errorf("requestlog: block size %d: want a positive number", opts.BlockSize)
	}
	switch opts.OnError {
	case "":
		opts.OnError = ingest.OnErrorFail
	case ingest.OnErrorFail, ingest.OnErrorSkip:
	default:
		return nil, fmt.Errorf("requestlog: unknown --on-error %q (want fail or skip)", opts.OnError)
	}
	units := map[string]time.Duration{"": time.Second, "s": time.Second, "ms": time.Millisecond, "us": time.Microsecond, "ns": time.Nanosecond}
	unit, ok := units[opts.TimeUnit]
	if !ok {
		return nil, fmt.Errorf("requestlog: unknown time unit %q (want s, ms, us or ns)", opts.TimeUnit)
	}
	m, err := buildMapping(opts.Map)
	if err != nil {
		return nil, err
	}
	key := opts.HashKey
	if key == nil {
		if key, err = NewKey(); err != nil {
			return nil, err
		}
	}
	h, err := newBlockHasher(key)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(src, 1<<20)
	r := &Reader{
		path: name, opts: opts, m: m, unit: unit,
		hasher: h, sess: newSessions(), chains: newChains(), turns: map[string]int{},
		lines: func() ([]byte, error) {
			raw, err := br.ReadBytes('\n')
			if len(raw) > 0 {
				return raw, nil
			}
			return nil, err
		},
	}
	for range runtime.GOMAXPROCS(0) {
		w, _ := newBlockHasher(key)
		r.pool = append(r.pool, w)
	}
	r.scratch = make([]workerScratch, len(r.pool))
	r.prompts = newPromptCache(promptCacheBytes)
	r.red = newRedactor(opts.Tokenizer)
	return r, nil
}

// Counts reports the lines accepted and rejected so far (final after io.EOF).
func (r *Reader) Counts() Counts {
	c := r.counts
	c.Sessions = int64(r.sess.roots + len(r.turns))
	c.CarriedFields = maps.Clone(c.CarriedFields)
	c.DroppedFields = maps.Clone(c.DroppedFields)
	return c
}

// Close releases the file.
func (r *Reader) Close() error {
	if r.ahead != nil { // let the batch being read finish before its file closes
		<-r.ahead
		r.ahead = nil
	}
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}

// batchLines is how many lines are prepared in parallel at a time.
const batchLines = 64

// prepared is one line after the work that needs no other line: parsing, rendering,
// tokenizing, hashing. err is the line's problem, if any.
type prepared struct {
	line   int64
	raw    []byte
	e      entry
	ids    []int
	prompt string
	out    int
	hashes []uint64
	// media are the line's images and mediaTokens their prompt tokens.
	media       []trace.MediaPart
	mediaTokens int
	imageRule   string // the name of the rule that counted media, for Counts.ImageRules
	// digests place a chat request without a logged session in its conversation.
	digests chatDigests
	// link is the Responses answer a chained request continues.
	link chainLink
	err  error
}

// batch is a run of prepared lines and why reading stopped after them: nil when more may
// follow, io.EOF at the end, or the read error.
type batch struct {
	items []prepared
	err   error
}

// readBatch reads the next batchLines non-empty lines and prepares them on all cores. One runs
// at a time (the line source, the hashers and the key buffers are its own), on the consumer's
// goroutine or ahead of it (see nextBatch).
func (r *Reader) readBatch() batch {
	var b batch
	b.items = make([]prepared, 0, batchLines)
	for len(b.items) < batchLines {
		raw, err := r.lines()
		if err != nil {
			if errors.Is(err, io.EOF) {
				b.err = io.EOF
			} else {
				b.err = fmt.Errorf("%s: %w", r.path, err)
			}
			break
		}
		r.line++
		if data := bytes.TrimSpace(raw); len(data) > 0 {
			b.items = append(b.items, prepared{line: r.line, raw: data})
			r.sawLine = true
		}
	}
	if errors.Is(b.err, io.EOF) && !r.sawLine {
		b.err = fmt.Errorf("%s: %w", r.path, ingest.ErrEmpty)
	}
	// Lines are handed out one at a time, so a worker that drew a long conversation does not
	// leave the other cores idle at the end of the batch.
	var wg sync.WaitGroup
	var next atomic.Int64
	workers := min(len(r.pool), len(b.items))
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(b.items); i = int(next.Add(1) - 1) {
				r.prepare(&b.items[i], r.pool[w], &r.scratch[w])
			}
		}()
	}
	wg.Wait()
	return b
}

// nextBatch returns the batch read ahead, or reads one now when none is; then, unless the input
// ended, it starts reading the following one, so the cores prepare it while this one goes
// through the in-order stage and the caller's own work.
func (r *Reader) nextBatch() batch {
	var b batch
	if r.ahead != nil {
		b = <-r.ahead
		r.ahead = nil
	} else {
		b = r.readBatch()
	}
	if b.err == nil {
		ch := make(chan batch, 1)
		go func() { ch <- r.readBatch() }()
		r.ahead = ch
	}
	return b
}

// Next returns the next line's Request, io.EOF after the last. Under OnError "fail" the first
// bad line's *ingest.RowError ends the stream.
func (r *Reader) Next() (Request, error) {
	for {
		if len(r.queue) == 0 {
			if r.err != nil {
				return Request{}, r.err
			}
			if r.ended != nil {
				r.err = r.ended
				return Request{}, r.err
			}
			b := r.nextBatch()
			r.queue, r.ended = b.items, b.err
			continue
		}
		p := r.queue[0]
		r.queue = r.queue[1:]
		req, err := r.finish(&p)
		if err == nil {
			r.counts.Records++
			return req, nil
		}
		rowErr := &ingest.RowError{File: r.path, Line: p.line, Row: -1, Err: err}
		var fe *fieldError
		if errors.As(err, &fe) {
			rowErr.Field, rowErr.Err = fe.field, fe.err
		}
		if r.opts.OnError != ingest.OnErrorSkip || errors.Is(err, errNoImageRule) || errors.Is(err, errNoAudioRule) {
			r.err, r.queue = rowErr, nil
			return Request{}, r.err
		}
		r.counts.Rejected++
		if len(r.counts.Errors) < maxKeptErrors {
			r.counts.Errors = append(r.counts.Errors, rowErr.Error())
		}
		if r.opts.Quarantine != nil {
			if _, err := r.opts.Quarantine.Write(append(p.raw, '\n')); err != nil {
				r.err, r.queue = fmt.Errorf("writing the quarantine: %w", err), nil
				return Request{}, r.err
			}
		}
	}
}

// prepare does the per-line work that depends on no other line; it runs concurrently with
// other lines' (the tokenizer and the chat renderer are safe for concurrent use).
func (r *Reader) prepare(p *prepared, h *blockHasher, sc *workerScratch) {
	e, err := parseLine(p.raw, r.m, r.unit)
	if err != nil {
		p.err = err
		return
	}
	if e.needRaw || r.opts.KeepText {
		if err := rawOptions(p.raw, r.m["request"], r.m.name("request"), &e, r.red, r.opts.KeepText, h.pseudonym); err != nil {
			p.err = err
			return
		}
	}
	p.e = e
	p.err = r.count(p, h, sc)
}

// count tokenizes a parsed line's prompt (but a chained Responses request's, which needs
// the request it continues: finish counts it), its output when usage does not say it, and
// hashes the prompt's blocks.
func (r *Reader) count(p *prepared, h *blockHasher, sc *workerScratch) error {
	e := &p.e
	tok := r.opts.Tokenizer
	switch {
	case e.prevID != "":
	case e.chat:
		if err := r.renderChat(p, h, sc); err != nil {
			return err
		}
	case e.api == trace.APIEmbeddings:
		r.countInputs(p)
	case e.promptIDs != nil:
		p.ids = e.promptIDs
		if r.opts.KeepText {
			p.prompt = tok.Decode(p.ids, false)
		}
	default:
		p.prompt = e.prompt
		p.ids = tok.Encode(p.prompt, true) // the server's post-processor adds BOS
	}
	p.out = e.usageCompletion
	if p.out < 0 { // every choice's text (n > 1) and thinking, as usage would count them
		p.out = tok.Count(e.responseText)
		for _, t := range append(e.moreText, e.thinking.beside...) {
			p.out += tok.Count(t)
		}
	}
	r.countThoughts(e, p.out)
	if !e.chat {
		p.hashes = h.hashes(p.ids, r.opts.BlockSize)
	}
	if len(e.media) > 0 {
		var err error
		usage := e.usagePrompt
		if e.prevID != "" {
			usage = -1 // the text is the whole chain's, counted later: no size is told from it
		}
		if p.media, p.mediaTokens, p.imageRule, err = r.readMedia(e.media, e.model, h, usage, len(p.ids)); err != nil {
			return err
		}
	}
	if e.chat && e.session == "" && e.prevID == "" {
		p.digests = sc.dig.digest(e.user, e.messages, e.responseText, e.hasResponse)
	}
	return nil
}

// renderChat renders a conversation with the chat template and its tools, tokenizes it and
// hashes its blocks, reusing the previous turn's when the prompt cache has it.
func (r *Reader) renderChat(p *prepared, h *blockHasher, sc *workerScratch) error {
	e := &p.e
	if r.opts.Chat == nil {
		return errors.New("a chat request, but no chat template was loaded")
	}
	key := &sc.key
	key.buf, key.ends = messagesKey(key.buf[:0], key.ends[:0], e.tools, e.messages)
	if c, ok := r.prompts.get(key.buf); ok {
		p.prompt, p.ids, p.hashes = c.prompt, c.ids, slices.Clone(c.hashes)
		return nil
	}
	var err error
	if p.prompt, err = r.opts.Chat.RenderTools(e.messages, e.tools); err != nil {
		return &fieldError{field: r.m.name("request") + "." + contentName(e.api), err: err}
	}
	p.ids = r.opts.Tokenizer.Encode(p.prompt, false) // the template holds the BOS text
	// The previous turn: these messages but the last two (its answer and the new
	// question), or the last one.
	var prev promptEntry
	for cut := 2; cut >= 1; cut-- {
		if n := len(e.messages) - cut; n > 0 {
			if c, ok := r.prompts.get(key.buf[:key.ends[n-1]]); ok {
				prev = c
				break
			}
		}
	}
	p.hashes = h.hashesAfter(p.ids, r.opts.BlockSize, prev.ids, prev.hashes)
	r.prompts.put(key.buf, promptEntry{prompt: p.prompt, ids: p.ids, hashes: slices.Clone(p.hashes)})
	return nil
}

// contentName is the body member holding an api request's content, for errors.
func contentName(api string) string {
	if api == trace.APIResponses || api == trace.APIEmbeddings {
		return "input"
	}
	return "messages"
}

// countInputs counts each input of an embeddings request (text with the tokenizer's
// specials, unless the body turned them off; token ids as they are) into its options; the
// prompt is the inputs one after the other.
func (r *Reader) countInputs(p *prepared) {
	e := &p.e
	o := e.opts
	o.InputList, o.InputIDs = e.inputList, e.inputIDs != nil
	for _, text := range e.inputs {
		ids := r.opts.Tokenizer.Encode(text, e.addSpecial)
		o.Inputs = append(o.Inputs, len(ids))
		p.ids = append(p.ids, ids...)
	}
	for _, ids := range e.inputIDs {
		o.Inputs = append(o.Inputs, len(ids))
		p.ids = append(p.ids, ids...)
	}
	if r.opts.KeepText {
		p.prompt = strings.Join(e.inputs, "\n")
		if e.inputIDs != nil {
			p.prompt = r.opts.Tokenizer.Decode(p.ids, false)
		}
	}
}

// countFields adds a record's carried and dropped body fields to the counts.
func (r *Reader) countFields(b bodyOptions) {
	add := func(m *map[string]int64, names []string) {
		if len(names) > 0 && *m == nil {
			*m = map[string]int64{}
		}
		for _, n := range names {
			(*m)[n]++
		}
	}
	add(&r.counts.CarriedFields, b.carried)
	add(&r.counts.DroppedFields, b.dropped)
}

// workerScratch is a worker's reusable buffers.
type workerScratch struct {
	key promptKey
	dig digester
}

// promptKey is a prompt cache key being built (see messagesKey).
type promptKey struct {
	buf  []byte
	ends []int
}

// finish does the work that follows log order: the time check, sessions and counts.
func (r *Reader) finish(p *prepared) (Request, error) {
	if p.err != nil {
		return Request{}, p.err
	}
	e := p.e
	if r.begun && e.time.Before(r.last) {
		return Request{}, &fieldError{field: r.m.name("timestamp"), err: fmt.Errorf("out of order: %s is before the previous line's %s (sort the log by time first)", e.time.Format(time.RFC3339Nano), r.last.Format(time.RFC3339Nano))}
	}
	if e.prevID != "" {
		if err := r.renderChained(p); err != nil {
			return Request{}, err
		}
		e = p.e
	}
	rec := trace.Record{
		PromptTokens: len(p.ids) + p.mediaTokens,
		OutputTokens: p.out,
		Media:        p.media,
		BlockHashes:  p.hashes,
		BlockSize:    r.opts.BlockSize,
		Model:        e.model,
		Headers:      e.headers,
		Options:      e.opts,
		Source:       r.path,
		Line:         p.line,
	}
	r.countFields(e.fields)
	switch {
	case e.session != "":
		rec.SessionID = r.hasher.pseudonym(e.session)
		rec.Turn = r.turns[rec.SessionID]
		r.turns[rec.SessionID]++
	case e.prevID != "":
		rec.SessionID, rec.Turn = p.link.session, p.link.turn+1
	case e.chat:
		rec.SessionID, rec.Turn = r.sess.assign(e.messages, p.digests)
	default:
		rec.SessionID = r.sess.newRoot().session
	}
	if e.api == trace.APIResponses {
		r.chains.remember(&e, e.messages, rec.Media, rec.SessionID, rec.Turn)
	}
	if !r.begun {
		r.origin, r.begun = e.time, true
	}
	r.last = e.time
	rec.Timestamp = e.time.Sub(r.origin)
	req := Request{Record: rec, UsagePromptTokens: e.usagePrompt}
	imagesBefore := r.counts.Images
	for _, m := range rec.Media {
		switch {
		case m.Kind == trace.MediaKindAudio:
			r.counts.Audio++
		case m.SizeInferred:
			r.counts.Images++
			r.counts.ImagesSizeInferred++
		default:
			r.counts.Images++
		}
	}
	if p.imageRule != "" {
		if r.counts.ImageRules == nil {
			r.counts.ImageRules = map[string]int64{}
		}
		r.counts.ImageRules[p.imageRule] += r.counts.Images - imagesBefore
	}
	if e.usagePrompt >= 0 {
		r.counts.UsageChecked++
		if e.usagePrompt != rec.PromptTokens {
			r.counts.UsageMismatches++
		}
	}
	if r.opts.KeepText {
		req.Prompt, req.Response = p.prompt, e.responseText
	}
	return req, nil
}

// renderChained counts a Responses request that continues an earlier answer
// (previous_response_id) over its whole conversation, as the engine renders it: in log
// order, once the answer it continues has been read.
func (r *Reader) renderChained(p *prepared) error {
	e := &p.e
	link, msgs, err := r.chains.continued(e, r.m.name("request"))
	if err != nil {
		return err
	}
	if r.opts.Chat == nil {
		return errors.New("a chat request, but no chat template was loaded")
	}
	if p.prompt, err = r.opts.Chat.RenderTools(msgs, e.tools); err != nil {
		return &fieldError{field: r.m.name("request") + ".input", err: err}
	}
	p.ids = r.opts.Tokenizer.Encode(p.prompt, false)
	p.hashes = r.hasher.hashes(p.ids, r.opts.BlockSize)
	e.messages, p.link = msgs, link
	var earlier int
	p.media, earlier = chainedMedia(link, p.media)
	p.mediaTokens += earlier
	return nil
}
