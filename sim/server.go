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

	// counters of zero-cost answers, which never go through the engine
	zPrompt, zGen, zSuccess atomic.Uint64
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
	s := &Server{cfg: cfg, mux: http.NewServeMux()}
	s.mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { s.complete(w, r, true) })
	s.mux.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) { s.complete(w, r, false) })
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

// Close stops the engine loop; requests still inside it end (streams are cut, others get 503).
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

// complete serves /v1/chat/completions (chat) and /v1/completions.
func (s *Server) complete(w http.ResponseWriter, r *http.Request, chat bool) {
	if !s.started.Load() {
		writeError(w, http.StatusServiceUnavailable, "server_error", "simulated engine not started")
		return
	}
	bodyBuf := bufPool.Get().(*[]byte)
	body, err := readBody(w, r, (*bodyBuf)[:0])
	*bodyBuf = body
	if err != nil {
		putBuf(bodyBuf)
		writeError(w, http.StatusBadRequest, "invalid_request_error", "reading request body: "+err.Error())
		return
	}
	req, err := ParseRequest(body, chat, s.cfg.DefaultMaxTokens)
	putBuf(bodyBuf) // ParseRequest copies what it keeps
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	n := s.arrived.Add(1)
	d := s.cfg.Faults.decide(s.cfg.Seed, n)
	if d.stall > 0 {
		t := time.NewTimer(d.stall)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	switch d.fault {
	case faultError:
		writeError(w, http.StatusInternalServerError, "server_error", "simulated internal error (fault injection)")
		return
	case faultRateLimit:
		writeError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "simulated rate limit (fault injection)")
		return
	}
	p, err := buildPrompt(&s.cfg, &req)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	if p.tokens+req.MaxTokens > s.cfg.MaxModelLen {
		writeError(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf(
			"prompt (%d tokens) plus max_tokens (%d) exceeds the maximum context length %d", p.tokens, req.MaxTokens, s.cfg.MaxModelLen))
		return
	}
	model := req.Model
	if model == "" {
		model = s.cfg.ModelName
	}
	a := newAnswer(chat, n, time.Now().Unix(), model)
	brk := d.fault == faultBreak
	if s.cfg.ZeroCost {
		s.serveZeroCost(w, &req, p, a, brk)
		return
	}
	sq := &seq{prompt: p, maxTokens: req.MaxTokens, out: newStream()}
	switch s.eng.submit(sq) {
	case queueFull:
		writeError(w, http.StatusTooManyRequests, "rate_limit_exceeded", fmt.Sprintf("waiting queue full (%d requests)", s.cfg.MaxWaiting))
		return
	case tooLarge:
		writeError(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf(
			"prompt plus max_tokens needs more KV blocks than the cache holds (%d blocks of %d tokens)", s.cfg.NumBlocks, s.cfg.BlockSize))
		return
	case engineStopped:
		writeError(w, http.StatusServiceUnavailable, "server_error", errEngineClosed.Error())
		return
	}
	if req.Stream {
		s.streamAnswer(w, r, &req, sq, a, brk)
	} else {
		s.fullAnswer(w, r, &req, sq, a, brk)
	}
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

// streamAnswer relays the engine's tokens as SSE chunks as they are generated.
func (s *Server) streamAnswer(w http.ResponseWriter, r *http.Request, req *Request, sq *seq, a *answer, brk bool) {
	st := sq.out
	sseHeaders(w)
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	rc.Flush()
	bp := bufPool.Get().(*[]byte)
	defer putBuf(bp)
	k := s.cfg.TokensPerChunk
	written := 0
	for {
		if brk && written >= req.MaxTokens/2 {
			s.eng.cancel(sq)
			abort(w)
			return
		}
		select {
		case <-st.notify:
		case <-r.Context().Done():
			s.eng.cancel(sq)
			return
		}
		if st.err.Load() != nil {
			abort(w)
			return
		}
		t := int(st.tokens.Load())
		done := t >= req.MaxTokens
		b := (*bp)[:0]
		for t-written >= k || (done && t > written) {
			m := min(k, t-written)
			b = a.appendChunk(b, m, written == 0, written+m == req.MaxTokens)
			written += m
			if brk && written >= req.MaxTokens/2 {
				break
			}
		}
		if done && written == req.MaxTokens {
			if req.IncludeUsage {
				b = a.appendUsageChunk(b, usage{prompt: sq.prompt.tokens, completion: req.MaxTokens, cached: int(st.cached.Load())})
			}
			b = appendDone(b)
		}
		*bp = b
		if len(b) > 0 {
			if _, err := w.Write(b); err != nil {
				s.eng.cancel(sq)
				return
			}
			rc.Flush()
		}
		if written == req.MaxTokens {
			return
		}
	}
}

// fullAnswer waits for the whole answer and writes one JSON body.
func (s *Server) fullAnswer(w http.ResponseWriter, r *http.Request, req *Request, sq *seq, a *answer, brk bool) {
	st := sq.out
	for int(st.tokens.Load()) < req.MaxTokens {
		select {
		case <-st.notify:
		case <-r.Context().Done():
			s.eng.cancel(sq)
			return
		}
		if st.err.Load() != nil {
			writeError(w, http.StatusServiceUnavailable, "server_error", errEngineClosed.Error())
			return
		}
		if brk && int(st.tokens.Load()) >= req.MaxTokens/2 {
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
	b := a.appendFull((*bp)[:0], usage{prompt: sq.prompt.tokens, completion: req.MaxTokens, cached: int(st.cached.Load())})
	*bp = b
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.Write(b)
}

// zeroCostSingleWrite is the largest zero-cost body written at once with a Content-Length;
// longer ones are written in pieces of this size.
const zeroCostSingleWrite = 256 << 10

// serveZeroCost answers at once, with every chunk of the answer in as few writes as possible.
func (s *Server) serveZeroCost(w http.ResponseWriter, req *Request, p prompt, a *answer, brk bool) {
	s.zPrompt.Add(uint64(p.tokens))
	u := usage{prompt: p.tokens, completion: req.MaxTokens}
	bp := bufPool.Get().(*[]byte)
	defer putBuf(bp)
	b := (*bp)[:0]
	if !req.Stream {
		if brk {
			abort(w)
			return
		}
		b = a.appendFull(b, u)
		*bp = b
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Write(b)
		s.zGen.Add(uint64(req.MaxTokens))
		s.zSuccess.Add(1)
		return
	}
	sseHeaders(w)
	k := s.cfg.TokensPerChunk
	stop := req.MaxTokens
	if brk {
		stop = req.MaxTokens / 2
	}
	headerSent := false
	for written := 0; written < stop; {
		m := min(k, stop-written)
		b = a.appendChunk(b, m, written == 0, written+m == req.MaxTokens)
		written += m
		if len(b) >= zeroCostSingleWrite {
			headerSent = true
			if _, err := w.Write(b); err != nil {
				*bp = b
				return
			}
			b = b[:0]
		}
	}
	if brk {
		*bp = b
		w.Write(b)
		http.NewResponseController(w).Flush() // hijacking drops unflushed writes
		abort(w)
		return
	}
	if req.IncludeUsage {
		b = a.appendUsageChunk(b, u)
	}
	b = appendDone(b)
	*bp = b
	if !headerSent {
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	}
	w.Write(b)
	s.zGen.Add(uint64(req.MaxTokens))
	s.zSuccess.Add(1)
}

// models lists the one served model, owned by the simulator so no one mistakes it for a model.
func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	b := []byte(`{"object":"list","data":[{"id":`)
	b = appendJSONString(b, s.cfg.ModelName)
	b = append(b, `,"object":"model","created":0,"owned_by":"replay-simulator","root":`...)
	b = appendJSONString(b, s.cfg.ModelName)
	b = append(b, `,"max_model_len":`...)
	b = strconv.AppendInt(b, int64(s.cfg.MaxModelLen), 10)
	b = append(b, "}]}\n"...)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}
