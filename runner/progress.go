package runner

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/llm-replay/replay/scheduler"
)

// progress is the live display on stderr: sent / in flight / done / errors, the scheduler's
// recent p99 send lateness and elapsed wall time against the schedule's length. On a terminal it
// is a redrawn bar; otherwise (CI, a log file) a plain line every few seconds.
type progress struct {
	total   int64
	c       *scheduler.Counters
	errors  atomic.Int64
	span    time.Duration // the schedule's length in wall time (trace span / speed)
	start   time.Time
	stop    chan struct{}
	stopped chan struct{}
}

func newProgress(total int, span time.Duration, c *scheduler.Counters) *progress {
	return &progress{total: int64(total), c: c, span: span, stop: make(chan struct{}), stopped: make(chan struct{})}
}

func (p *progress) failed() { p.errors.Add(1) }

func (p *progress) line() string {
	return fmt.Sprintf("sent %d/%d  in flight %d  done %d  errors %d  lateness p99 %s  elapsed %s of %s",
		p.c.Sent(), p.total, p.c.InFlight(), p.c.Completed(), p.errors.Load(),
		time.Duration(p.c.LatenessP99NS()).Round(time.Microsecond),
		time.Since(p.start).Truncate(time.Second), p.span.Round(time.Second))
}

// run draws until finish is called. w is normally os.Stderr.
func (p *progress) run(w io.Writer) {
	p.start = time.Now()
	go func() {
		defer close(p.stopped)
		if !isTerminal(w) {
			p.plain(w)
			return
		}
		bar := progressbar.NewOptions64(p.total, progressbar.OptionSetWriter(w),
			progressbar.OptionSetWidth(20), progressbar.OptionShowDescriptionAtLineEnd(),
			progressbar.OptionThrottle(200*time.Millisecond))
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			_ = bar.Set64(p.c.Completed())
			bar.Describe(p.line())
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

func (p *progress) plain(w io.Writer) {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			fmt.Fprintln(w, "replay:", p.line())
			return
		case <-t.C:
			fmt.Fprintln(w, "replay:", p.line())
		}
	}
}

func (p *progress) finish() {
	close(p.stop)
	<-p.stopped
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
