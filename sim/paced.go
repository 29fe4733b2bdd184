package sim

import (
	"net/http"
	"time"
)

// pacedStream writes a zero-cost answer one chunk step at a time, Config.TokenDelay apart (the
// first at once), flushing each, and returns the buffer and whether the whole answer was
// written. It is the open-streams load of a real engine without its cost model: thousands of
// streams in flight, each a few bytes every TokenDelay, which is what a client must absorb.
// A fault pauses it where it pauses the unpaced stream.
func (s *Server) pacedStream(w http.ResponseWriter, r *http.Request, req *Request, a *answer, u usage, f Fault, b []byte) ([]byte, bool) {
	sseHeaders(w)
	rc := http.NewResponseController(w)
	a.input = usage{prompt: u.prompt}
	if b = a.fr.appendStart(b[:0]); len(b) > 0 {
		if _, err := w.Write(b); err != nil {
			return b, false
		}
	}
	c := s.newChunker(a, req.N, a.out.tokens, f)
	t := time.NewTimer(s.cfg.TokenDelay)
	t.Stop() // armed per chunk below (a stopped timer's Reset has no stale tick since Go 1.23)
	defer t.Stop()
	for !c.complete() {
		b = c.appendReady(b[:0], a.out.tokens, 1) // one step: a chunk of each choice
		if _, err := w.Write(b); err != nil {
			return b, false
		}
		rc.Flush()
		if c.paused() {
			if !s.resume(w, r, &c, f) {
				return b, false
			}
			continue
		}
		if c.complete() {
			break
		}
		t.Reset(s.cfg.TokenDelay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			return b, false
		}
	}
	b = a.fr.appendEnd(b[:0], u)
	_, err := w.Write(b)
	return b, err == nil
}
