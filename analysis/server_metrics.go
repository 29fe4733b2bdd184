package analysis

import "fmt"

// ServerMetrics says whether scraping the endpoint's metrics page gave anything at all: a run
// whose page was expected (the engine serves one, or --metrics-url named it) but never gave a
// sample of any series its engine's table reads has no server figures, and says so here
// instead of leaving them silently absent. Note is empty when there were samples.
type ServerMetrics struct {
	URL      string `json:"url"`
	Scrapes  int    `json:"scrapes"`
	Failures int    `json:"failures"`
	// Samples counts the values of known series read over the whole run (every scrape's).
	Samples int    `json:"samples"`
	Note    string `json:"note,omitempty"`
}

// serverMetrics is the summary's server_metrics from what the scraper saw (c); nil when the
// page was not scraped, or for a run written before samples were counted (c.Samples nil).
func serverMetrics(c *ServerCache) *ServerMetrics {
	if c == nil || c.Samples == nil {
		return nil
	}
	sm := &ServerMetrics{URL: c.MetricsURL, Scrapes: c.Scrapes, Failures: c.Failures, Samples: *c.Samples}
	if sm.Samples > 0 {
		return sm
	}
	readAs := c.ReadAs
	if readAs == "" {
		readAs = "any engine"
	}
	switch {
	case c.Scrapes == 0 && c.FirstError != "":
		sm.Note = fmt.Sprintf("no samples at %s: all %d scrapes failed (%s)", c.MetricsURL, c.Failures, c.FirstError)
	case c.Scrapes == 0:
		sm.Note = fmt.Sprintf("no samples at %s: it was never scraped", c.MetricsURL)
	default:
		sm.Note = fmt.Sprintf("no samples at %s: %d scrapes read the page, which held none of %s's series; no server figure (queue, KV cache, prefix-cache counters) is from the endpoint", c.MetricsURL, c.Scrapes, readAs)
	}
	return sm
}
