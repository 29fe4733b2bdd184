package sim

import (
	"bufio"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// arrivalLog writes one line per request to a served API (chat, completions, responses,
// messages, embeddings) as it arrives, tab-separated: the server's
// clock when the handler starts (Unix nanoseconds, read before anything else of the request
// is looked at), its X-Request-Id, when the request's bytes reached the server's kernel
// (the socket's receive timestamp, rxOf; 0 where unknown), and its traceparent header (W3C
// Trace Context; "-" when it had none, so no line ends in an empty field), so a test sees the trace context the server got. It measures lateness from the side
// that matters, the server's: a client's own figure cannot see the time its request spent in
// its kernel, the network and the server's accept queue; the two server instants tell the
// request's arrival apart from the server's own wake-up for it.
type arrivalLog struct {
	mu  sync.Mutex
	w   *bufio.Writer
	err error
}

// wrap logs the arrivals of h's API requests.
func (l *arrivalLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now().UnixNano()
		if r.Method == http.MethodPost && apiPath(r.URL.Path) {
			l.add(now, r.Header.Get("X-Request-Id"), rxOf(r), r.Header.Get("Traceparent"))
		}
		h.ServeHTTP(w, r)
	})
}

// apiPath reports a path of the served APIs, whose requests are the replayed ones.
func apiPath(p string) bool {
	for _, suffix := range [...]string{"completions", "/responses", "/messages", "/embeddings"} {
		if strings.HasSuffix(p, suffix) {
			return true
		}
	}
	return false
}

func (l *arrivalLog) add(ns int64, id string, rx int64, traceparent string) {
	var b [192]byte
	line := strconv.AppendInt(b[:0], ns, 10)
	line = append(line, '\t')
	line = append(line, oneField(id)...)
	line = append(line, '\t')
	line = strconv.AppendInt(line, rx, 10)
	line = append(line, '\t')
	if traceparent == "" {
		traceparent = "-"
	}
	line = append(line, oneField(traceparent)...)
	line = append(line, '\n')
	l.mu.Lock()
	if _, err := l.w.Write(line); err != nil && l.err == nil {
		l.err = err
	}
	l.mu.Unlock()
}

// oneField is a header's value made safe for one tab-separated field.
func oneField(v string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, v)
}

// flush writes out what is buffered; the log is flushed when the server stops.
func (l *arrivalLog) flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.w.Flush(); err != nil && l.err == nil {
		l.err = err
	}
	return l.err
}

func newArrivalLog(w io.Writer) *arrivalLog { return &arrivalLog{w: bufio.NewWriterSize(w, 64<<10)} }
