package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

var (
	errRequestTimeout = errors.New("per-request timeout")
	errDrained        = errors.New("stream kept open after [DONE]")
	errLineTooLong    = fmt.Errorf("SSE line longer than %d bytes", maxLine)
)

const (
	// maxLine bounds one SSE line (a frame with huge logprobs still fits).
	maxLine = 16 << 20
	// maxErrorBody bounds how much of an error answer is read for its message.
	maxErrorBody = 64 << 10
	// maxJunk bounds how much non-SSE text of a 2xx answer is kept to explain a failure.
	maxJunk = 8 << 10
	// drainWait is how long the stream may stay open after [DONE] while the client reads to
	// its end (which lets the connection be reused).
	drainWait = time.Second
	// chunkPrealloc caps the ChunkNS capacity reserved up front from MaxTokens.
	chunkPrealloc = 1024
)

// readBufs holds stream read buffers; a buffer grown for an overlong line is not returned.
var readBufs = sync.Pool{New: func() any { b := make([]byte, 16<<10); return &b }}

// call is one request's state shared by the steps of Do. It lives on Do's stack.
type call struct {
	ctx    context.Context // the caller's
	rctx   context.Context // ctx with the per-request timeout, drain and stall causes
	cancel context.CancelCauseFunc
	clock  func() int64
	stall  *stallWatch // nil without Config.StallTimeout
	// api is the API the request goes to; maxTokens is the output cap the server was sent
	// (ExtraBody may override the request's), 0 when none and -1 when unknown; inputs is how
	// many embeddings the answer must hold (-1 when unknown); wantUsage is whether usage must
	// be in the answer (include_usage was sent, or an answer that always has it, unless
	// Config.OmitUsage); streamed whether the answer is an SSE stream.
	api       apiKind
	maxTokens int
	inputs    int
	wantUsage bool
	streamed  bool
	// trace is the request's traceparent (Request.Trace), zero for none.
	trace TraceParent
	// headers are the request's own (Request.Headers), written after the client's.
	headers []Header
	// written is when the request's last byte was handed to the kernel (direct.go, or
	// httptrace's WroteRequest, which net/http calls on its writing goroutine, hence atomic);
	// 0 until then.
	written atomic.Int64
	// conns counts the connections the request was given (httptrace's GotConn): 2 when it was
	// resent (resend.go).
	conns atomic.Int32
}

// Do sends one streaming request and reads its stream to the end. clock returns the caller's
// monotonic time in nanoseconds; every timestamp in the Response is a value of it, taken
// where the event is read. With Config.StallTimeout, clock is also called from a timer
// goroutine, so it must be safe for concurrent use (a time.Since-based clock is). Do never
// panics on server bytes and always returns a Response: failures are classified in
// ErrorClass, not returned as errors.
func (c *Client) Do(ctx context.Context, req Request, clock func() int64) Response {
	r := c.do(ctx, req, clock)
	if c.key != "" && r.ErrorMessage != "" {
		// A server or gateway may quote the credential back in its error: it must not reach
		// a result row.
		r.ErrorMessage = strings.ReplaceAll(r.ErrorMessage, c.key, "[api key]")
	}
	return r
}

func (c *Client) do(ctx context.Context, req Request, clock func() int64) (r Response) {
	r = Response{PromptTokens: -1, CompletionTokens: -1, CachedTokens: -1, ReasoningTokens: -1}
	k := call{ctx: ctx, clock: clock, trace: req.Trace, headers: req.Headers}
	body, url, err := c.bodyOf(&k, req)
	if _, known := apiKindOf(req.API); req.API == "" || known {
		r.API = k.api.String()
	}
	d := c.direct
	if own, ok := c.oa.HTTPClient.(*http.Client); !ok || own != c.own {
		d = nil
	}
	var hreq *http.Request
	if err == nil && d == nil {
		hreq, err = c.newRequest(&k, req, body, url)
	}
	if err != nil {
		r.SentNS = clock()
		r.DoneNS = r.SentNS
		r.ErrorClass, r.ErrorMessage = ErrClient, withNote("", err.Error(), "(a failure on this machine, not the endpoint's)")
		return r
	}
	if req.MaxTokens > 0 && k.streamed {
		r.ChunkNS = make([]int64, 0, min(req.MaxTokens, chunkPrealloc))
	}
	var hresp *http.Response
	if d != nil {
		hresp, err = d.send(c, &k, url, req.ID, body, &r)
		defer k.cancel(nil)
	} else {
		defer k.cancel(nil)
		r.SentNS = clock()
		// A non-streamed answer is silent until it is whole, so the stall watch, which would
		// take that for a stall, is for streams only (Config.Timeout bounds both).
		if c.stall > 0 && k.streamed {
			k.stall = startStall(c.stall, clock, r.SentNS, k.cancel)
			defer k.stall.stop()
		}
		hresp, err = c.oa.HTTPClient.Do(hreq)
	}
	defer func() { // r is the named result: set on every return
		r.WrittenNS = k.written.Load()
		r.Resent = r.Resent || k.conns.Load() > 1
	}()
	if err != nil {
		if errors.As(err, new(unwrittenError)) {
			k.written.Store(0)
		}
		r.DoneNS = clock()
		class := ErrConnect
		if TLSFailure(err) {
			class = ErrTLS
		}
		r.ErrorClass, r.ErrorMessage = k.cut(class, err, connectMessage(err), &r)
		return r
	}
	defer hresp.Body.Close()
	r.HTTPStatus = hresp.StatusCode
	if hresp.StatusCode < 200 || hresp.StatusCode > 299 {
		errorAnswer(hresp, clock, &r)
		return r
	}
	if !k.streamed {
		answer(&k, hresp, &r)
		return r
	}
	if k.stall != nil {
		k.stall.touch(clock()) // the headers arrived
	}
	stream(&k, hresp, &r)
	return r
}

// bodyOf is req's body and the URL it goes to, with k's judging fields set from it. Every
// error is this machine's.
func (c *Client) bodyOf(k *call, req Request) (body []byte, url string, err error) {
	if e := req.Encoded; e != nil {
		if req.API != "" && req.API != e.api.String() {
			return nil, "", fmt.Errorf("client: request API %q, but its body was encoded for %q", req.API, e.api)
		}
		body, k.api, k.maxTokens, k.inputs, k.wantUsage, k.streamed = e.body, e.api, e.maxTokens, e.inputs, e.wantUsage, e.streamed
	} else if body, err = c.prepare(k, req); err != nil {
		return nil, "", err
	}
	url = c.urls[k.api]
	if !validHeaderValue(req.ID) {
		return nil, "", fmt.Errorf("client: request id %q is not a valid header value", req.ID)
	}
	for _, h := range req.Headers {
		if !validToken(h.Name) || !validHeaderValue(h.Value) {
			return nil, "", fmt.Errorf("client: header %q: not a valid header name and value", h.Name)
		}
	}
	return body, url, nil
}

// arm makes k's per-request context: it carries the per-request timeout (its cause tells a
// timeout from the caller's cancellation) and lets the drain after [DONE] and the stall watch
// cut the request short.
func (c *Client) arm(k *call) {
	if c.timeout > 0 {
		tctx, stop := context.WithTimeoutCause(k.ctx, c.timeout, errRequestTimeout)
		var cc context.CancelCauseFunc
		k.rctx, cc = context.WithCancelCause(tctx)
		k.cancel = func(err error) { cc(err); stop() }
	} else {
		k.rctx, k.cancel = context.WithCancelCause(k.ctx)
	}
}

// newRequest builds the HTTP request of body to url under k's per-request context (arm).
// Every error is this machine's.
func (c *Client) newRequest(k *call, req Request, body []byte, url string) (*http.Request, error) {
	c.arm(k)
	// The send's own lateness is taken where the last byte leaves, not where the request is
	// handed over: connecting, a TLS handshake and the write itself are as late to the server.
	clock := k.clock
	trace := &httptrace.ClientTrace{
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			if info.Err == nil {
				k.written.Store(clock())
			}
		},
		// A second connection for one request is a resend under resend.go's rule (either
		// transport gets one only then).
		GotConn: func(httptrace.GotConnInfo) { k.conns.Add(1) },
	}
	hreq, err := http.NewRequestWithContext(httptrace.WithClientTrace(k.rctx, trace), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		k.cancel(nil)
		return nil, fmt.Errorf("client: building request: %w", err)
	}
	accept := "application/json"
	if k.streamed {
		accept = "text/event-stream"
	}
	hreq.Header = http.Header{
		"Content-Type": {"application/json"},
		"Accept":       {accept},
	}
	if c.auth != "" {
		hreq.Header["Authorization"] = []string{c.auth}
	}
	if k.api == kindMessages {
		hreq.Header["Anthropic-Version"] = []string{anthropicVersion}
		if c.key != "" {
			hreq.Header["X-Api-Key"] = []string{c.key}
		}
	}
	if req.ID != "" {
		hreq.Header["X-Request-Id"] = []string{req.ID}
	}
	if !req.Trace.IsZero() {
		hreq.Header["Traceparent"] = []string{req.Trace.String()}
	}
	for _, h := range req.Headers {
		hreq.Header.Set(h.Name, h.Value)
	}
	markReplayable(hreq.Header)
	return hreq, nil
}

// prepare builds req's body and sets what k judges the answer by: the API it goes to, the
// output cap sent, the embeddings it must hold, whether usage must come and whether the
// answer streams. A verbatim body says the last two itself and its cap is not judged (the
// lengths are the engine's own). The Responses, Messages and embeddings APIs report usage
// in every answer, streamed or not (there is no include_usage to ask), so it is wanted there
// unless Config.OmitUsage, as in a non-streamed chat answer.
func (c *Client) prepare(k *call, req Request) ([]byte, error) {
	k.api = c.api
	if req.API != "" {
		var ok bool
		if k.api, ok = apiKindOf(req.API); !ok {
			return nil, unknownAPI("request API", req.API)
		}
	}
	if req.Body != nil {
		v, err := verbatimBody(req.Body, c.modelOf(req))
		if err != nil {
			return nil, err
		}
		k.maxTokens, k.streamed, k.inputs = -1, v.streamed, v.inputs
		k.wantUsage = v.includeUsage || ((!v.streamed || k.api.typed()) && c.usage != nil)
		return c.addAdapter(v.body, req, v.keys)
	}
	k.maxTokens = c.sentMaxTokens(k.api, req.MaxTokens)
	k.streamed = req.Options.streamed() && k.api != kindEmbeddings
	k.wantUsage = c.usage != nil
	k.inputs = -1
	if k.api == kindEmbeddings {
		k.inputs = embeddingCount(req)
	}
	return c.body(req, k.api)
}

// validHeaderValue reports whether s can be sent as a header value: no control bytes but tab
// (net/http would refuse the request, and a line break would split the header).
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; (b < ' ' && b != '\t') || b == 0x7f {
			return false
		}
	}
	return true
}

// errorAnswer reads a non-2xx answer: its class, the server's message and, on 429 and 503,
// the Retry-After the server asked for.
func errorAnswer(hresp *http.Response, clock func() int64, r *Response) {
	b, rerr := io.ReadAll(io.LimitReader(hresp.Body, maxErrorBody))
	r.DoneNS = clock()
	r.ErrorClass = statusClass(hresp.StatusCode)
	r.ErrorMessage = errorBodyMessage(b)
	if r.ErrorMessage == "" {
		r.ErrorMessage = hresp.Status
		if rerr != nil {
			r.ErrorMessage = truncate(r.ErrorMessage + ": " + rerr.Error())
		}
	}
	if hresp.StatusCode == http.StatusTooManyRequests || hresp.StatusCode == http.StatusServiceUnavailable {
		r.RetryAfterNS = retryAfter(hresp.Header.Get("Retry-After"), time.Now())
	}
}

// cut names why a request ended without its whole answer: the caller's cancellation first,
// then the per-request timeout, then the stall timeout, then this machine's limits (err is
// one), else fallback; msg says what failed (err in its context).
func (k *call) cut(fallback string, err error, msg string, r *Response) (class, message string) {
	switch cause := context.Cause(k.rctx); {
	case k.ctx.Err() != nil:
		return ErrCanceled, truncate("canceled by the run: " + context.Cause(k.ctx).Error())
	case errors.Is(cause, errRequestTimeout):
		return ErrTimeout, "no complete response within the per-request timeout"
	case errors.Is(cause, errStalled) && k.stall != nil:
		return ErrTimeout, k.stall.message(r)
	case clientLimit(err):
		return ErrClient, withNote("client limit: ", msg, "(this machine's limit, not the endpoint's)")
	}
	return fallback, truncate(msg)
}

// stream reads the body of a 2xx answer to its end and judges it.
func stream(k *call, hresp *http.Response, r *Response) {
	bp := readBufs.Get().(*[]byte)
	st := streamState{api: k.api, tu: noTokens}
	buf, readErr := st.read(k, hresp.Body, *bp, r)
	if len(buf) == len(*bp) {
		readBufs.Put(bp)
	}
	if !st.done {
		r.DoneNS = k.clock()
	}
	r.ErrorClass, r.ErrorMessage = st.judge(k, readErr, hresp.Header, r)
	r.FinishReason = st.finish
}

// read reads SSE lines from body into buf (grown for long lines and returned), timestamping
// each read, until the body ends; it returns what ended it.
func (st *streamState) read(k *call, body io.Reader, buf []byte, r *Response) ([]byte, error) {
	var (
		start, end, scanned int // buf[start:end] is unread; buf[start:scanned] holds no '\n'
		drain               *time.Timer
		err                 error
	)
	for {
		if end == len(buf) {
			if buf, start, end, scanned, err = makeRoom(buf, start, end, scanned); err != nil {
				break
			}
		}
		var n int
		n, err = body.Read(buf[end:])
		if n > 0 {
			// One timestamp per read: everything in it arrived together.
			now := k.clock()
			if k.stall != nil {
				k.stall.touch(now)
			}
			end += n
			start, scanned = st.lines(buf[:end], start, scanned, now, r)
			if start == end {
				start, end, scanned = 0, 0, 0
			}
			if st.done && drain == nil {
				// Read on to the end of the body so the connection can be reused, but do
				// not wait on a server that keeps the stream open.
				cancel := k.cancel
				drain = time.AfterFunc(drainWait, func() { cancel(errDrained) })
			}
		}
		if err != nil {
			if err == io.EOF && start < end {
				// A last line without its newline: take it (the SSE spec drops it, but a
				// final "data: [DONE]" or usage frame is worth keeping).
				st.line(buf[start:end], k.clock(), r)
			}
			break
		}
	}
	if drain != nil {
		drain.Stop()
	}
	return buf, err
}

// makeRoom frees space at the end of a full buffer: it moves the unread bytes to the front,
// or doubles the buffer when they fill it, up to maxLine.
func makeRoom(buf []byte, start, end, scanned int) ([]byte, int, int, int, error) {
	switch {
	case start > 0:
		copy(buf, buf[start:end])
		return buf, 0, end - start, scanned - start, nil
	case len(buf) >= maxLine:
		return buf, start, end, scanned, errLineTooLong
	}
	nb := make([]byte, 2*len(buf))
	copy(nb, buf[:end])
	return nb, start, end, scanned, nil
}

// lines handles every complete line in b[start:] (b[start:scanned] is known to hold no '\n')
// and returns the new start and scanned offsets.
func (st *streamState) lines(b []byte, start, scanned int, now int64, r *Response) (int, int) {
	for {
		j := bytes.IndexByte(b[scanned:], '\n')
		if j < 0 {
			return start, len(b)
		}
		line := b[start : scanned+j]
		start = scanned + j + 1
		scanned = start
		st.line(line, now, r)
	}
}
