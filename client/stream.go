package client

import "bytes"

// streamState is what the lines read so far established.
type streamState struct {
	api       apiKind // how the stream is read: chat's chunks, or typed events (stream_typed.go)
	done      bool    // data: [DONE] seen
	finished  bool    // a finish_reason seen
	length    bool    // a finish_reason "length" seen
	finish    string  // Response.FinishReason so far
	usage     bool    // a usage object with a non-zero count seen (the one kept in Response)
	dataLines int     // data lines before [DONE], parsed or not
	errFrame  bool    // a stream error frame seen (the first one is kept)
	errClass  string
	errMsg    string
	// bad counts data frames that are not JSON objects; badAt is the first one's number
	// among the data lines (from 1) and badQuote its bytes, quoted and bounded.
	bad      int
	badAt    int
	badQuote string
	junk     []byte // the start of any non-SSE text, to explain a 200 that was not a stream
	// Typed streams only: errEvent is whether the current event's "event:" line named
	// error; tu the usage merged over the events so far; sawTool whether a function call's
	// arguments streamed.
	errEvent bool
	tu       tokens
	sawTool  bool
	// split: the server streamed a reasoning delta, so it splits thinking out; inThink: the
	// content is inside a think block (think.go).
	split, inThink bool
}

// line handles one SSE line (without its '\n') read at time now.
func (st *streamState) line(l []byte, now int64, r *Response) {
	if st.done {
		return
	}
	if n := len(l); n > 0 && l[n-1] == '\r' {
		l = l[:n-1]
	}
	if st.api.typed() {
		st.typedLine(l, now, r)
		return
	}
	if len(l) < 5 || string(l[:5]) != "data:" {
		st.junkLine(l)
		return
	}
	p := bytes.TrimSpace(l[5:])
	if string(p) == "[DONE]" {
		st.done = true
		r.DoneNS = now
		return
	}
	st.dataLines++
	f, ok := parseFrame(p)
	if !ok {
		st.badFrame(l)
		return
	}
	st.frame(&f, now, r)
	if f.isError && !st.errFrame {
		st.errorFrame(&f, p)
	}
}

// junkLine keeps the start of a line that is neither data nor an SSE field or comment, to
// explain an answer that is not SSE.
func (st *streamState) junkLine(l []byte) {
	if len(l) > 0 && l[0] != ':' && !sseField(l) && len(st.junk) < maxJunk {
		st.junk = append(st.junk, l[:min(len(l), maxJunk)]...)
		st.junk = append(st.junk, '\n')
	}
}

// chunk records a content chunk of thinking, answer or both that arrived at now.
func chunk(now int64, r *Response, thinking, answer bool) {
	if len(r.ChunkNS) == 0 {
		r.FirstTokenNS = now
	}
	r.ChunkNS = append(r.ChunkNS, now)
	r.LastTokenNS = now
	if thinking {
		if r.ReasoningChunks == 0 {
			r.FirstReasoningNS = now
		}
		r.ReasoningChunks++
	}
	if answer {
		if r.AnswerChunks == 0 {
			r.FirstAnswerNS = now
		}
		r.AnswerChunks++
	}
}

// frame records what a parsed data frame carries.
func (st *streamState) frame(f *frame, now int64, r *Response) {
	if f.content() {
		thinking, answer := st.kinds(f, r.AnswerChunks > 0)
		chunk(now, r, thinking, answer)
	}
	st.finished = st.finished || f.finished
	st.length = st.length || f.length
	if f.reason != "" && st.finish != "length" {
		st.finish = f.reason
	}
	// Keep the last non-zero usage: some servers (Ollama on completions) send a zero usage
	// on every chunk and the real one last.
	if f.hasUsage && (f.prompt > 0 || f.completion > 0) {
		st.usage = true
		r.PromptTokens, r.CompletionTokens, r.CachedTokens = int(f.prompt), int(f.completion), int(f.cached)
		r.ReasoningTokens = int(f.reasoning)
	}
}

// badFrame counts a data line whose payload is not a JSON object; the first one is quoted
// (copied: l is the read buffer's) to explain the class.
func (st *streamState) badFrame(l []byte) {
	st.bad++
	if st.bad == 1 {
		st.badAt = st.dataLines
		st.badQuote = quoteBounded(l)
	}
}

// errorFrame keeps the first stream error frame's class and message.
func (st *streamState) errorFrame(f *frame, p []byte) {
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

// sseField reports whether l is one of the SSE fields we ignore (event, id, retry).
func sseField(l []byte) bool {
	return bytes.HasPrefix(l, []byte("event:")) || bytes.HasPrefix(l, []byte("id:")) ||
		bytes.HasPrefix(l, []byte("retry:"))
}
