package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
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

// Do sends one streaming request and reads its stream to the end. clock returns the caller's
// monotonic time in nanoseconds; every timestamp in the Response is a value of it, taken
// where the event is read. Do never panics on server bytes and always returns a Response:
// failures are classified in ErrorClass, not returned as errors.
func (c *Client) Do(ctx context.Context, req Request, clock func() int64) Response {
	r := Response{PromptTokens: -1, CompletionTokens: -1, CachedTokens: -1}
	if req.MaxTokens > 0 {
		r.ChunkNS = make([]int64, 0, min(req.MaxTokens, chunkPrealloc))
	}
	body, err := c.body(req)
	if err != nil {
		r.SentNS = clock()
		r.DoneNS = r.SentNS
		r.ErrorClass, r.ErrorMessage = ErrConnect, truncate(err.Error())
		return r
	}
	// rctx carries the per-request timeout (its cause tells a timeout from the caller's
	// cancellation) and lets the drain after [DONE] be cut short.
	var (
		rctx   context.Context
		cancel context.CancelCauseFunc
	)
	if c.timeout > 0 {
		var stop context.CancelFunc
		rctx, stop = context.WithTimeoutCause(ctx, c.timeout, errRequestTimeout)
		var cc context.CancelCauseFunc
		rctx, cc = context.WithCancelCause(rctx)
		cancel = func(err error) { cc(err); stop() }
	} else {
		rctx, cancel = context.WithCancelCause(ctx)
	}
	defer cancel(nil)

	hreq, err := http.NewRequestWithContext(rctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		r.SentNS = clock()
		r.DoneNS = r.SentNS
		r.ErrorClass, r.ErrorMessage = ErrConnect, truncate(err.Error())
		return r
	}
	hreq.Header = http.Header{
		"Content-Type": {"application/json"},
		"Accept":       {"text/event-stream"},
	}
	if c.auth != "" {
		hreq.Header["Authorization"] = []string{c.auth}
	}

	r.SentNS = clock()
	hresp, err := c.oa.HTTPClient.Do(hreq)
	if err != nil {
		r.DoneNS = clock()
		r.ErrorClass, r.ErrorMessage = classify(ctx, rctx, ErrConnect, err.Error())
		return r
	}
	defer hresp.Body.Close()
	r.HTTPStatus = hresp.StatusCode
	if hresp.StatusCode < 200 || hresp.StatusCode > 299 {
		b, rerr := io.ReadAll(io.LimitReader(hresp.Body, maxErrorBody))
		r.DoneNS = clock()
		r.ErrorClass = statusClass(hresp.StatusCode)
		r.ErrorMessage = errorBodyMessage(b)
		if r.ErrorMessage == "" {
			r.ErrorMessage = hresp.Status
			if rerr != nil {
				r.ErrorMessage += ": " + rerr.Error()
			}
		}
		return r
	}
	c.stream(ctx, rctx, cancel, hresp.Body, clock, &r)
	return r
}

// classify names a failure: the caller's cancellation and our timeout first, else fallback.
func classify(ctx, rctx context.Context, fallback, msg string) (class, message string) {
	switch {
	case ctx.Err() != nil:
		return ErrCanceled, truncate("canceled by the run: " + context.Cause(ctx).Error())
	case errors.Is(context.Cause(rctx), errRequestTimeout):
		return ErrTimeout, "no complete response within the per-request timeout"
	}
	return fallback, truncate(msg)
}

// stream reads SSE lines from body, timestamping each read, until the body ends.
func (c *Client) stream(ctx, rctx context.Context, cancel context.CancelCauseFunc, body io.Reader, clock func() int64, r *Response) {
	bp := readBufs.Get().(*[]byte)
	buf := *bp
	defer func() {
		if len(buf) == len(*bp) {
			readBufs.Put(bp)
		}
	}()
	var (
		st                  streamState
		start, end, scanned int // buf[start:end] is unread; buf[start:scanned] holds no '\n'
		readErr             error
		drain               *time.Timer
	)
	for {
		if end == len(buf) {
			switch {
			case start > 0:
				copy(buf, buf[start:end])
				end -= start
				scanned -= start
				start = 0
			case len(buf) >= maxLine:
				readErr = errLineTooLong
			default:
				nb := make([]byte, 2*len(buf))
				copy(nb, buf[:end])
				buf = nb
			}
			if readErr != nil {
				break
			}
		}
		n, err := body.Read(buf[end:])
		if n > 0 {
			// One timestamp per read: everything in it arrived together.
			now := clock()
			end += n
			for {
				j := bytes.IndexByte(buf[scanned:end], '\n')
				if j < 0 {
					scanned = end
					break
				}
				line := buf[start : scanned+j]
				start = scanned + j + 1
				scanned = start
				st.line(line, now, r)
			}
			if start == end {
				start, end, scanned = 0, 0, 0
			}
			if st.done && drain == nil {
				// Read on to the end of the body so the connection can be reused, but do
				// not wait on a server that keeps the stream open.
				drain = time.AfterFunc(drainWait, func() { cancel(errDrained) })
			}
		}
		if err != nil {
			readErr = err
			if err == io.EOF && start < end {
				// A last line without its newline: take it (the SSE spec drops it, but a
				// final "data: [DONE]" or usage frame is worth keeping).
				st.line(buf[start:end], clock(), r)
			}
			break
		}
	}
	if drain != nil {
		drain.Stop()
	}
	if !st.done {
		r.DoneNS = clock()
	}
	switch {
	case st.errFrame:
		r.ErrorClass, r.ErrorMessage = st.errClass, st.errMsg
	case st.done || st.finished:
		// Complete: [DONE], or a finish_reason followed by the end of the body.
	case readErr == io.EOF:
		r.ErrorClass = ErrStreamBroken
		if st.frames == 0 && len(st.junk) > 0 {
			r.ErrorMessage = "answer is not an SSE stream: " + errorBodyMessage(st.junk)
		} else {
			r.ErrorMessage = fmt.Sprintf("stream closed before [DONE] after %d content chunks", len(r.ChunkNS))
		}
		r.ErrorMessage = truncate(r.ErrorMessage)
	default:
		r.ErrorClass, r.ErrorMessage = classify(ctx, rctx, ErrStreamBroken,
			fmt.Sprintf("reading stream after %d content chunks: %v", len(r.ChunkNS), readErr))
	}
}

// streamState is what the lines read so far established.
type streamState struct {
	done     bool // data: [DONE] seen
	finished bool // a finish_reason seen
	frames   int  // data frames parsed
	errFrame bool // a stream error frame seen (the first one is kept)
	errClass string
	errMsg   string
	junk     []byte // the start of any non-SSE text, to explain a 200 that was not a stream
}

// line handles one SSE line (without its '\n') read at time now.
func (st *streamState) line(l []byte, now int64, r *Response) {
	if st.done {
		return
	}
	if n := len(l); n > 0 && l[n-1] == '\r' {
		l = l[:n-1]
	}
	if len(l) < 5 || string(l[:5]) != "data:" {
		if len(l) > 0 && l[0] != ':' && !sseField(l) && len(st.junk) < maxJunk {
			st.junk = append(st.junk, l[:min(len(l), maxJunk)]...)
			st.junk = append(st.junk, '\n')
		}
		return
	}
	p := bytes.TrimSpace(l[5:])
	if string(p) == "[DONE]" {
		st.done = true
		r.DoneNS = now
		return
	}
	f, ok := parseFrame(p)
	if !ok {
		return
	}
	st.frames++
	if f.content {
		if len(r.ChunkNS) == 0 {
			r.FirstTokenNS = now
		}
		r.ChunkNS = append(r.ChunkNS, now)
		r.LastTokenNS = now
	}
	if f.finished {
		st.finished = true
	}
	// Keep the last non-zero usage: some servers (Ollama on completions) send a zero usage
	// on every chunk and the real one last.
	if f.hasUsage && (f.prompt > 0 || f.completion > 0) {
		r.PromptTokens, r.CompletionTokens, r.CachedTokens = int(f.prompt), int(f.completion), int(f.cached)
	}
	if f.isError && !st.errFrame {
		st.errFrame = true
		st.errClass = ErrStreamBroken
		if f.errCode >= 400 && f.errCode <= 599 {
			st.errClass = statusClass(int(f.errCode))
		}
		st.errMsg = truncate(decodeRaw(f.errMsg))
		if st.errMsg == "" {
			st.errMsg = truncate("stream error: " + string(p))
		}
	}
}

// sseField reports whether l is one of the SSE fields we ignore (event, id, retry).
func sseField(l []byte) bool {
	return bytes.HasPrefix(l, []byte("event:")) || bytes.HasPrefix(l, []byte("id:")) ||
		bytes.HasPrefix(l, []byte("retry:"))
}
