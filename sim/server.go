package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// maxBody bounds a request body; longer prompts than this are not a realistic replay.
const maxBody = 64 << 20

// Server is the simulated engine's HTTP handler. Call Start before serving and Close after.
type Server struct {
	cfg     Config
	mux     *http.ServeMux
	eng     *engine
	arrived atomic.Uint64

	startMu sync.Mutex
	started atomic.Bool
	cancel  context.CancelFunc
	loop    chan struct{}
	// closed is done once the server stops, so that stalled requests end with it.
	closed <-chan struct{}

	// counters of zero-cost answers, which never go through the engine
	zPrompt, zGen, zSuccess atomic.Uint64
	// queue holds per-request queue times when a test asks for them (queuetime.go).
	queue queueTimes
	// byModel counts the requests naming one of Config.Models (models.go).
	byModel map[string]*Config
}

// New returns a server for cfg; a nil Counter becomes ApproxCounter. The configuration is
// checked by Start.
func New(cfg Config) *Server {
	if cfg.Counter == nil {
		cfg.Counter = ApproxCounter{}
	}
	if cfg.ModelName == "" {
		cfg.ModelName = "replay-sim"
	}
	if cfg.EmbeddingDimensions == 0 {
		cfg.EmbeddingDimensions = defaultEmbeddingDimensions
	}
	for _, m := range cfg.Models {
		cfg.servesAdapters = cfg.servesAdapters || m.Adapter
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), byModel: servedModels(cfg)}
	for path, d := range map[string]*dialect{
		"/v1/chat/completions": &chatDialect, "/v1/completions": &completionsDialect,
		"/v1/responses": &responsesDialect, "/v1/messages": &messagesDialect,
	} {
		s.mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) { s.complete(w, r, d) })
	}
	s.mux.HandleFunc("POST /v1/embeddings", s.embed)
	s.mux.HandleFunc("GET /v1/models", s.models)
	s.mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	s.mux.HandleFunc("GET /metrics", s.metrics)
	return s
}

// Start checks the configuration and starts the engine loop, which runs until ctx is done or
// Close is called.
func (s *Server) Start(ctx context.Context) error {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.started.Load() {
		return errors.New("sim: server already started")
	}
	if err := s.cfg.validate(); err != nil {
		return err
	}
	s.eng = newEngine(&s.cfg)
	ctx, s.cancel = context.WithCancel(ctx)
	s.closed = ctx.Done()
	s.loop = make(chan struct{})
	go func() {
		defer close(s.loop)
		if s.cfg.ZeroCost {
			<-ctx.Done()
			return
		}
		s.eng.run(ctx)
	}()
	s.started.Store(true)
	return nil
}

// Close stops the engine loop; requests still inside it or stalled end (streams are cut, others
// get 503).
func (s *Server) Close() error {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.cancel == nil {
		return nil
	}
	s.cancel()
	<-s.loop
	s.cancel = nil
	return nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// writeError writes an OpenAI-style error body.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	b := make([]byte, 0, 128+len(msg))
	b = append(b, `{"error":{"message":`...)
	b = appendJSONString(b, msg)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, typ)
	b = append(b, `,"param":null,"code":`...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, "}}\n"...)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

// bufPool holds request and response buffers.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// putBuf returns a buffer to the pool unless it grew too big to keep around.
func putBuf(b *[]byte) {
	if cap(*b) <= 1<<20 {
		bufPool.Put(b)
	}
}

// complete serves a generating route: chat, completions, the Responses API, Anthropic's
// Messages API, each in its dialect d.
func (s *Server) complete(w http.ResponseWriter, r *http.Request, d *dialect) {
	if !s.started.Load() {
		s.writeRetryable(w, d.errs, http.StatusServiceUnavailable, "server_error", "simulated engine not started")
		return
	}
	bodyBuf := bufPool.Get().(*[]byte)
	body, err := readBody(w, r, (*bodyBuf)[:0])
	*bodyBuf = body
	if err != nil {
		putBuf(bodyBuf)
		d.errs.write(w, http.StatusBadRequest, "invalid_request_error", "reading request body: "+err.Error())
		return
	}
	req, err := d.parse(body, s.cfg.DefaultMaxTokens)
	putBuf(bodyBuf) // parse copies what it keeps
	if err != nil {
		d.errs.write(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	n := s.arrived.Add(1)
	f := s.drawFault(r, n)
	if s.answerFaultEarly(w, r, f, d.errs) {
		return
	}
	cfg, served := s.counting(req.Model)
	if !served {
		notServed(w, d.errs, req.Model)
		return
	}
	p, err := buildPrompt(cfg, &req)
	if err != nil {
		d.errs.write(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	if p.tokens+req.MaxTokens > s.cfg.MaxModelLen {
		d.errs.write(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf(
			"prompt (%d tokens) plus %s (%d) exceeds the maximum context length %d", p.tokens, d.capField, req.MaxTokens, s.cfg.MaxModelLen))
		return
	}
	model := req.Model
	if model == "" {
		model = s.cfg.ModelName
	}
	a := d.answer(&req, n, time.Now().Unix(), model)
	a.out = newOutput(cfg.Counter, &req)
	if s.cfg.ZeroCost {
		s.serveZeroCost(w, r, &req, p, a, f)
		return
	}
	s.generate(w, r, &req, p, a, f)
}

// generate submits a request to the engine and relays its answer.
func (s *Server) generate(w http.ResponseWriter, r *http.Request, req *Request, p prompt, a *answer, f Fault) {
	sq := &seq{prompt: p, maxTokens: a.out.tokens, n: req.N, tokenCost: s.cfg.tokenCost(req.Structured), priority: req.Priority, adapter: p.adapter, out: newStream()}
	arrived := s.eng.sinceStart()
	if !s.submitted(w, a.errs, s.eng.submit(sq), req.N) {
		return
	}
	defer s.noteQueue(r, sq, arrived)
	if req.Stream {
		s.streamAnswer(w, r, req, sq, a, f)
	} else {
		s.fullAnswer(w, r, req, sq, a, f)
	}
}

// submitted answers a submission that failed and reports whether it succeeded; n is the
// request's choices.
func (s *Server) submitted(w http.ResponseWriter, e errorShape, res submitResult, n int) bool {
	switch res {
	case queueFull:
		s.writeRetryable(w, e, http.StatusTooManyRequests, "rate_limit_exceeded", fmt.Sprintf("waiting queue full (%d requests)", s.cfg.MaxWaiting))
	case tooLarge:
		e.write(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf(
			"prompt plus max_tokens (times n=%d) needs more KV blocks than the cache holds (%d blocks of %d tokens)", n, s.cfg.NumBlocks, s.cfg.BlockSize))
	case tooWide:
		e.write(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf(
			"request body: field \"n\": %d choices decode together, more than one step holds (max batch %d, token budget %d)", n, s.cfg.MaxBatch, s.cfg.TokenBudget))
	case engineStopped:
		s.writeRetryable(w, e, http.StatusServiceUnavailable, "server_error", errEngineClosed.Error())
	default:
		return true
	}
	return false
}

// answerFaultEarly acts on the faults that come before the prompt is even looked at (a stall
// before the first byte, an error, a rate limit, garbage), as a proxy or an overloaded front
// end would; it reports whether the request has been answered (or abandoned) already.
func (s *Server) answerFaultEarly(w http.ResponseWriter, r *http.Request, f Fault, e errorShape) bool {
	if s.stallsBeforeFirstByte(f) {
		switch s.stall(r.Context()) {
		case stallClientGone:
			return true
		case stallServerClosed:
			s.writeRetryable(w, e, http.StatusServiceUnavailable, "server_error", errEngineClosed.Error())
			return true
		}
	}
	switch f {
	case FaultError:
		e.write(w, http.StatusInternalServerError, "server_error", "simulated internal error (fault injection)")
	case FaultRateLimit:
		s.writeRetryable(w, e, http.StatusTooManyRequests, "rate_limit_exceeded", "simulated rate limit (fault injection)")
	case FaultGarbage:
		writeGarbage(w)
	default:
		return false
	}
	return true
}

// readBody appends the request body to buf, up to maxBody bytes.
func readBody(w http.ResponseWriter, r *http.Request, buf []byte) ([]byte, error) {
	if n := r.ContentLength; n > 0 && n <= maxBody && int64(cap(buf)) < n {
		buf = make([]byte, 0, n)
	}
	rd := http.MaxBytesReader(w, r.Body, maxBody)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := rd.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// abort cuts the connection without finishing the response, as a crashed server would. What
// was written before is flushed first; a response not started yet is never started.
func abort(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	if conn, _, err := rc.Hijack(); err == nil {
		conn.Close()
		return
	}
	panic(http.ErrAbortHandler) // net/http's own way to cut a response it cannot hijack
}

func sseHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
}

// streamAnswer relays the engine's tokens as SSE chunks as they are generated. A break cuts
// the stream half-way; a first-token stall holds it after the first chunk while the engine goes
// on generating (the stall is on the wire, so it costs the engine nothing it would not spend).
func (s *Server) streamAnswer(w http.ResponseWriter, r *http.Request, req *Request, sq *seq, a *answer, f Fault) {
	st := sq.out
	sseHeaders(w)
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	bp := bufPool.Get().(*[]byte)
	defer putBuf(bp)
	if *bp = a.fr.appendStart((*bp)[:0]); len(*bp) > 0 {
		w.Write(*bp)
	}
	rc.Flush()
	c := s.newChunker(a, req.N, a.out.tokens, f)
	for {
		if st.err.Load() != nil {
			abort(w)
			return
		}
		ready := int(st.tokens.Load())
		a.input = usage{prompt: sq.prompt.tokens, cached: int(st.cached.Load())} // stored before the first token
		b := c.appendReady((*bp)[:0], ready, noByteLimit)
		if c.complete() && !c.paused() {
			b = a.fr.appendEnd(b, answerUsage(req, a, sq.prompt.tokens, a.input.cached))
		}
		*bp = b
		if len(b) > 0 {
			if _, err := w.Write(b); err != nil {
				s.eng.cancel(sq)
				return
			}
			rc.Flush()
		}
		if c.paused() {
			if !s.resume(w, r, &c, f) {
				s.eng.cancel(sq)
				return
			}
			continue // the tokens generated meanwhile are ready: write them before waiting
		}
		if c.complete() {
			return
		}
		select {
		case <-st.notify:
		case <-r.Context().Done():
			s.eng.cancel(sq)
			return
		}
	}
}

// resume acts on a paused stream: a break cuts it, a stall waits and lets it go on. It reports
// whether the stream goes on; when not, the connection has been cut or the client is gone.
func (s *Server) resume(w http.ResponseWriter, r *http.Request, c *chunker, f Fault) bool {
	if f == FaultBreak {
		abort(w)
		return false
	}
	switch s.stall(r.Context()) {
	case stallClientGone:
		return false
	case stallServerClosed:
		abort(w)
		return false
	}
	c.pause = noPause
	return true
}

// answerUsage is the usage of a whole answer: every choice's tokens count.
func answerUsage(req *Request, a *answer, promptTokens, cached int) usage {
	return usage{prompt: promptTokens, completion: req.N * a.out.tokens, cached: cached, reasoning: req.N * a.out.thinking}
}

// fullAnswer waits for the whole answer and writes one JSON body.
func (s *Server) fullAnswer(w http.ResponseWriter, r *http.Request, req *Request, sq *seq, a *answer, f Fault) {
	st := sq.out
	brk := f == FaultBreak
	for int(st.tokens.Load()) < a.out.tokens {
		select {
		case <-st.notify:
		case <-r.Context().Done():
			s.eng.cancel(sq)
			return
		}
		if st.err.Load() != nil {
			s.writeRetryable(w, a.errs, http.StatusServiceUnavailable, "server_error", errEngineClosed.Error())
			return
		}
		if brk && int(st.tokens.Load()) >= a.out.tokens/2 {
			s.eng.cancel(sq)
			abort(w)
			return
		}
	}
	if brk {
		abort(w)
		return
	}
	bp := bufPool.Get().(*[]byte)
	defer putBuf(bp)
	*bp = a.fr.appendFull((*bp)[:0], req.N, a.out.tokens, answerUsage(req, a, sq.prompt.tokens, int(st.cached.Load())))
	s.writeFullBody(w, r, *bp, f)
}

// writeFullBody writes a non-streaming body and reports whether it was all written. A
// first-token stall sends the headers first and holds the body: the nearest thing to a first
// token that a non-streaming answer has.
func (s *Server) writeFullBody(w http.ResponseWriter, r *http.Request, b []byte, f Fault) bool {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	if s.stallsAfterFirstToken(f) {
		w.WriteHeader(http.StatusOK)
		http.NewResponseController(w).Flush()
		switch s.stall(r.Context()) {
		case stallClientGone:
			return false
		case stallServerClosed:
			abort(w)
			return false
		}
	}
	_, err := w.Write(b)
	return err == nil
}

// zeroCostSingleWrite is the largest zero-cost body written at once with a Content-Length;
// longer ones are written in pieces of this size.
const zeroCostSingleWrite = 256 << 10

// serveZeroCost answers at once, with every chunk of the answer in as few writes as possible.
func (s *Server) serveZeroCost(w http.ResponseWriter, r *http.Request, req *Request, p prompt, a *answer, f Fault) {
	s.zPrompt.Add(uint64(p.tokens))
	u := answerUsage(req, a, p.tokens, 0)
	bp := bufPool.Get().(*[]byte)
	defer putBuf(bp)
	var ok bool
	switch {
	case req.Stream && s.cfg.TokenDelay > 0:
		*bp, ok = s.pacedStream(w, r, req, a, u, f, (*bp)[:0])
	case req.Stream:
		*bp, ok = s.zeroCostStream(w, r, req, a, u, f, (*bp)[:0])
	default:
		*bp, ok = s.zeroCostFull(w, r, req, a, u, f, (*bp)[:0])
	}
	if ok {
		s.zGen.Add(uint64(u.completion))
		s.zSuccess.Add(1)
	}
}

// zeroCostFull writes a non-streaming zero-cost answer in b's space and returns the buffer and
// whether the whole answer was written.
func (s *Server) zeroCostFull(w http.ResponseWriter, r *http.Request, req *Request, a *answer, u usage, f Fault, b []byte) ([]byte, bool) {
	if f == FaultBreak {
		abort(w)
		return b, false
	}
	b = a.fr.appendFull(b, req.N, a.out.tokens, u)
	return b, s.writeFullBody(w, r, b, f)
}

// zeroCostStream writes a streamed zero-cost answer in b's space and returns the buffer and
// whether the whole answer was written. Only an answer of one piece carries a Content-Length.
func (s *Server) zeroCostStream(w http.ResponseWriter, r *http.Request, req *Request, a *answer, u usage, f Fault, b []byte) ([]byte, bool) {
	sseHeaders(w)
	a.input = usage{prompt: u.prompt}
	b = a.fr.appendStart(b)
	c := s.newChunker(a, req.N, a.out.tokens, f)
	headerSent := false
	for {
		b = c.appendReady(b, a.out.tokens, zeroCostSingleWrite)
		if c.paused() {
			w.Write(b)
			http.NewResponseController(w).Flush() // hijacking drops unflushed writes
			headerSent, b = true, b[:0]
			if !s.resume(w, r, &c, f) {
				return b, false
			}
			continue
		}
		if c.complete() {
			break
		}
		headerSent = true // the buffer is full
		if _, err := w.Write(b); err != nil {
			return b, false
		}
		b = b[:0]
	}
	b = a.fr.appendEnd(b, u)
	if !headerSent {
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	}
	_, err := w.Write(b)
	return b, err == nil
}

// models lists the served models (ModelName's, then Config.Models'), owned by the simulator
// so no one mistakes one for a model.
func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	b := []byte(`{"object":"list","data":[`)
	b = s.appendModels(b)
	b = append(b, "]}\n"...)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}
