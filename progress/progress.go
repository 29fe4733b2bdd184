package progress

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/llm-replay/replay/results"
	"github.com/llm-replay/replay/scheduler"
)

// Display is the live display on stderr: sent / in flight / done / errors, the scheduler's
// recent p99 send lateness and elapsed wall time against the schedule's length. On a terminal it
// is a redrawn bar; otherwise (CI, a log file) a plain line every few seconds.
type Display struct {
	total   int64
	c       *scheduler.Counters
	errors  atomic.Int64
	span    time.Duration // the schedule's length in wall time (trace span / speed)
	start   time.Time
	stop    chan struct{}
	stopped chan struct{}
	// mode is Auto (a bar on a terminal, plain lines otherwise), JSON or Plain.
	mode string
	// limit is the send lateness p99 over which the run is client-bound (the run's
	// --max-lateness, as the verdict judges it); 0 judges nothing.
	limit  time.Duration
	flight *inFlight
}

// Display modes (--progress).
const (
	Auto  = "auto"
	Plain = "plain"
	JSON  = "json"
)

// New is the display of a run of total requests over a schedule of span in wall time, read
// from the scheduler's counters c, in mode.
func New(total int, span time.Duration, c *scheduler.Counters, mode string) *Display {
	return &Display{total: int64(total), c: c, span: span, stop: make(chan struct{}), stopped: make(chan struct{}), mode: mode,
		flight: &inFlight{since: map[int]time.Time{}}}
}

// JudgeLateness makes the display call the live lateness "behind" past limit, the same limit
// the run's verdict holds the send lateness p99 to (--max-lateness,
// analysis.DefaultMaxLateness by default), and "ok" within it; 0 or less judges nothing.
// Call it before Run.
func (p *Display) JudgeLateness(limit time.Duration) { p.limit = max(0, limit) }

// Add counts a failed request as a run's output (runner's Output): its last attempt's row,
// warmup left out. Every endpoint's sink adds to the one progress line.
func (p *Display) Add(r *results.Row) {
	if !r.Warmup && !r.Retried && !r.OK() {
		p.errors.Add(1)
	}
}

// line is what the bar shows, in words; colour marks the lateness judgement with the bar's
// colour codes (a terminal only).
func (p *Display) line(colour bool) string {
	head := fmt.Sprintf("sent %d/%d  in flight %d  done %d  errors %d  %s  ",
		p.c.Sent(), p.total, p.c.InFlight(), p.c.Completed(), p.errors.Load(), p.lateness(colour))
	now := time.Now()
	if p.draining(now) {
		if n, age := p.flight.oldest(now); n > 0 {
			return head + fmt.Sprintf("draining: %d requests in flight, oldest %s", n, age.Truncate(time.Second))
		}
	}
	return head + fmt.Sprintf("elapsed %s of %s", now.Sub(p.start).Truncate(time.Second), p.span.Round(time.Second))
}

// draining reports whether the schedule is done: every request sent (or never to be), or the
// schedule's length in wall time passed (a shard's display counts every shard's requests).
// What is left then is waiting for the requests in flight.
func (p *Display) draining(now time.Time) bool {
	return p.c.Sent()+p.c.NotSent() >= p.total || now.Sub(p.start) >= p.span
}

// lateness is the recent send lateness p99 and, when the run has a limit, its judgement
// against it: "behind" past the limit, "ok" within it, as the verdict will say.
func (p *Display) lateness(colour bool) string {
	p99 := time.Duration(p.c.LatenessP99NS())
	s := "lateness p99 " + p99.Round(time.Microsecond).String()
	if p.limit <= 0 {
		return s
	}
	word, tag := "ok", "[green]"
	if p99 > p.limit {
		word, tag = "behind", "[red]"
	}
	if colour {
		word = tag + word + "[reset]"
	}
	return fmt.Sprintf("%s %s (limit %s)", s, word, p.limit)
}

// Run draws until Finish is called. w is normally os.Stderr.
func (p *Display) Run(w io.Writer) {
	p.start = time.Now()
	go func() {
		defer close(p.stopped)
		switch {
		case p.mode == JSON:
			p.lines(w, p.jsonLine)
			return
		case p.mode == Plain || !isTerminal(w):
			p.lines(w, func() string { return "replay: " + p.line(false) })
			return
		}
		bar := progressbar.NewOptions64(p.total, progressbar.OptionSetWriter(w),
			progressbar.OptionSetWidth(20), progressbar.OptionShowDescriptionAtLineEnd(),
			progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionEnableColorCodes(true))
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			_ = bar.Set64(p.c.Completed())
			bar.Describe(p.line(true))
			select {
			case <-p.stop:
				_ = bar.Finish()
				fmt.Fprintln(w)
				return
			case <-t.C:
			}
		}
	}()
}

// lines writes one line every few seconds and a last one when the run's sends have returned.
func (p *Display) lines(w io.Writer, line func() string) {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			fmt.Fprintln(w, line())
			return
		case <-t.C:
			fmt.Fprintln(w, line())
		}
	}
}

// progressLine is --progress json's line: what the bar shows, as numbers.
type progressLine struct {
	Sent          int64   `json:"sent"`
	Total         int64   `json:"total"`
	InFlight      int64   `json:"in_flight"`
	Queued        int64   `json:"queued"`
	Held          int64   `json:"held"`
	Done          int64   `json:"done"`
	Errors        int64   `json:"errors"`
	LatenessP99MS float64 `json:"lateness_p99_ms"`
	// LatenessLimitMS is the limit the verdict holds LatenessP99MS to: behind past it
	// (omitted without a limit). Every field is a number, so a reader may parse the line into
	// one map of numbers.
	LatenessLimitMS float64 `json:"lateness_limit_ms,omitempty"`
	ElapsedS        float64 `json:"elapsed_s"`
	ScheduleS       float64 `json:"schedule_s"`
	// OldestInFlightS is, once the schedule is done (draining), the age of the request in
	// flight sent first; omitted before, and when nothing is in flight.
	OldestInFlightS float64 `json:"oldest_in_flight_s,omitempty"`
}

// jsonLine is the progressLine of now.
func (p *Display) jsonLine() string {
	now := time.Now()
	l := progressLine{Sent: p.c.Sent(), Total: p.total, InFlight: p.c.InFlight(), Queued: p.c.Queued(),
		Held: p.c.Held(), Done: p.c.Completed(), Errors: p.errors.Load(),
		LatenessP99MS: float64(p.c.LatenessP99NS()) / 1e6, ElapsedS: now.Sub(p.start).Seconds(), ScheduleS: p.span.Seconds()}
	if p.limit > 0 {
		l.LatenessLimitMS = float64(p.limit) / 1e6
	}
	if p.draining(now) {
		if n, age := p.flight.oldest(now); n > 0 {
			l.OldestInFlightS = age.Seconds()
		}
	}
	b, _ := json.Marshal(l)
	return string(b)
}

// Finish draws the last line and returns once the display has stopped.
func (p *Display) Finish() {
	close(p.stop)
	<-p.stopped
}

// isTerminal reports whether w is a terminal, where the bar is redrawn in place.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
