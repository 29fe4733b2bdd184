package scrape

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/common/expfmt"

	"github.com/llm-replay/replay/results"
)

// Config says what to scrape and where the samples go.
type Config struct {
	// URL is the metrics page, e.g. http://127.0.0.1:8000/metrics.
	URL string
	// Interval between scrapes; 0 means one second.
	Interval time.Duration
	// Path is the server-metrics file (runfolder.ServerMetrics's format) the samples are
	// appended to, one line per successful scrape, created at the first one (an endpoint
	// without metrics leaves no file); "" keeps them in memory only.
	Path string
	// Warn receives one line at the first failure (later ones are only counted); nil discards.
	Warn io.Writer
	// Client defaults to a client whose timeout is the interval, between 1 and 10 seconds.
	Client *http.Client
	// Names is the table of series kept: ForEngine's for the endpoint's engine, DCGM for a
	// GPU exporter. Empty means VLLM.
	Names Names
}

// Result is what a scraper saw over its life.
type Result struct {
	URL string
	// Source is the names table's (Names.Source): whose series the samples hold.
	Source string
	// Scrapes counts successful scrapes, Failures the others (HTTP errors, refused connections,
	// pages that do not parse); FirstError describes the first failure.
	Scrapes, Failures int
	FirstError        string
	// Samples are the successful scrapes: their time since Start and the kept series found on
	// the page.
	Samples []results.ServerSample
	// Increase holds, for each counter seen at least twice, its increase from the first to the
	// last successful scrape; a drop (a server restart) counts as a reset to zero, as
	// Prometheus's increase() does.
	Increase map[string]float64
	// From names, per key, the page's series that filled it at the last scrape that had it
	// (Names' table: the served name and label selector), so a figure can say where it came
	// from.
	From map[string]string
	// BadLines counts the malformed lines left out of pages that were otherwise read;
	// Dropped the values dropped as sentinels (vLLM's -1 hit rate, DCGM's blanks).
	BadLines, Dropped int
	// WriteError is the first error writing Path, after which samples are kept in memory only.
	WriteError error
}

// Scraper polls one metrics page until Stop.
type Scraper struct {
	cfg   Config
	start time.Time
	ctx   context.Context
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once

	// mu guards everything below: the polling goroutine and Stop both scrape.
	mu                  sync.Mutex
	res                 Result
	prev                map[string]float64
	file                *results.ServerMetricsWriter
	warned, warnedEmpty bool
}

// Start scrapes once before returning, so the counters' baseline precedes whatever the caller
// does next, then keeps scraping every interval until Stop. It fails only on a bad
// configuration; an unreachable or absent metrics page is a counted failure, not an error.
func Start(ctx context.Context, cfg Config) (*Scraper, error) {
	if cfg.URL == "" {
		return nil, fmt.Errorf("scrape: no URL")
	}
	if _, err := http.NewRequest(http.MethodGet, cfg.URL, nil); err != nil {
		return nil, fmt.Errorf("scrape: metrics URL %q: %w", cfg.URL, err)
	}
	if cfg.Interval < 0 {
		return nil, fmt.Errorf("scrape: interval %v must not be negative", cfg.Interval)
	}
	if cfg.Interval == 0 {
		cfg.Interval = time.Second
	}
	if len(cfg.Names.Series) == 0 {
		cfg.Names = VLLM
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: min(max(cfg.Interval, time.Second), 10*time.Second)}
	}
	s := &Scraper{
		cfg: cfg, start: time.Now(), ctx: context.WithoutCancel(ctx),
		stop: make(chan struct{}), done: make(chan struct{}),
		res: Result{URL: cfg.URL, Source: cfg.Names.Source, Increase: map[string]float64{}, From: map[string]string{}}, prev: map[string]float64{},
	}
	s.scrape()
	go s.loop(ctx)
	return s, nil
}

func (s *Scraper) loop(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			s.scrape()
		case <-s.stop:
			return
		case <-ctx.Done():
			return
		}
	}
}

// Stop ends the polling, scrapes a last time (so the counters cover everything that finished
// before the call) and returns the result. Calling it again returns the same result.
func (s *Scraper) Stop() Result {
	s.once.Do(func() {
		close(s.stop)
		<-s.done
		s.scrape()
		s.mu.Lock()
		if s.file != nil {
			if err := s.file.Close(); err != nil && s.res.WriteError == nil {
				s.res.WriteError = err
			}
			s.file = nil
		}
		s.mu.Unlock()
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.res
}

// maxPage bounds the bytes read from one metrics page.
const maxPage = 32 << 20

// scrape fetches and records one sample, or counts a failure.
func (s *Scraper) scrape() {
	s.mu.Lock()
	defer s.mu.Unlock()
	at := time.Now()
	vals, err := s.fetch()
	if err != nil {
		s.res.Failures++
		if s.res.FirstError == "" {
			s.res.FirstError = err.Error()
		}
		if !s.warned && s.cfg.Warn != nil {
			s.warned = true
			fmt.Fprintf(s.cfg.Warn, "replay: server metrics: %v; carrying on without them (an endpoint without /metrics is normal; --metrics-url none turns scraping off). Later failures are only counted.\n", err)
		}
		return
	}
	s.res.Scrapes++
	if len(vals) == 0 && !s.warnedEmpty && s.cfg.Warn != nil {
		s.warnedEmpty = true
		fmt.Fprintf(s.cfg.Warn, "replay: server metrics: %s has none of %s's series (%s); the figures they feed will be missing\n", s.cfg.URL, s.cfg.Names.Source, strings.Join(s.cfg.Names.preferred(), ", "))
	}
	for name, v := range vals {
		if !s.cfg.Names.isCounter(name) {
			continue
		}
		if p, seen := s.prev[name]; seen {
			if v >= p {
				s.res.Increase[name] += v - p
			} else {
				s.res.Increase[name] += v
			}
		}
		s.prev[name] = v
	}
	smp := results.ServerSample{OffsetS: at.Sub(s.start).Seconds(), Time: at, Values: vals}
	s.res.Samples = append(s.res.Samples, smp)
	s.write(smp)
}

func (s *Scraper) fetch() (map[string]float64, error) {
	resp, err := getPage(s.ctx, s.cfg.Client, s.cfg.URL)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	vals, st, err := parse(io.LimitReader(resp.Body, maxPage), expfmt.ResponseFormat(resp.Header), s.cfg.Names)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", s.cfg.URL, err)
	}
	s.res.Dropped += st.Dropped
	for k, name := range st.From {
		s.res.From[k] = name
	}
	if st.BadLines > 0 {
		if s.res.BadLines == 0 && s.cfg.Warn != nil {
			fmt.Fprintf(s.cfg.Warn, "replay: server metrics: %s has %d malformed line(s); the page's other series are kept, later bad lines only counted\n", s.cfg.URL, st.BadLines)
		}
		s.res.BadLines += st.BadLines
	}
	return vals, nil
}

// write appends one sample line; after a write error it stops writing and keeps the error.
func (s *Scraper) write(smp results.ServerSample) {
	if s.cfg.Path == "" || s.res.WriteError != nil {
		return
	}
	if s.file == nil {
		f, err := results.CreateServerMetrics(s.cfg.Path)
		if err != nil {
			s.res.WriteError = err
			return
		}
		s.file = f
	}
	if err := s.file.Write(smp); err != nil {
		s.res.WriteError = err
	}
}
