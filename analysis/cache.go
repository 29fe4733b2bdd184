package analysis

import "github.com/llm-replay/replay/prefixcache"

// Cache is the prefix cache's hit rate three ways, side by side, each as a share of prompt
// tokens: HitPct from the server's usage (cached prompt tokens over reported prompt tokens,
// null when no request reported usage), ServerHitPct from its Prometheus counters (the increase
// of the engine's prefix-cache hit counter over that of its query counter during the run,
// ServerCache.Source naming them; null when they were not scraped), and IdealHitPct from the trace itself (an infinite prefix
// cache over the sent prompts' block hashes, null when the trace has none).
type Cache struct {
	CachedTokens int64    `json:"cached_tokens"`
	PromptTokens int64    `json:"prompt_tokens"`
	HitPct       *float64 `json:"hit_pct"`
	ServerHitPct *float64 `json:"server_hit_pct"`
	IdealHitPct  *float64 `json:"ideal_hit_pct"`
	// LoggedHitPct is the log's own rate (Ideal.Logged), null when its records do not say
	// what was cached.
	LoggedHitPct *float64 `json:"logged_hit_pct,omitempty"`
	// Server and Ideal hold the figures behind ServerHitPct and IdealHitPct.
	Server *ServerCache `json:"server,omitempty"`
	Ideal  *IdealCache  `json:"ideal,omitempty"`
}

// ServerCache is what scraping the endpoint's Prometheus metrics during the run found.
// QueriedTokens and HitTokens are the increases of the engine's prefix-cache counters from the first
// to the last successful scrape (null when the page did not have them twice). Failures counts
// scrapes that failed; an endpoint without /metrics fails every one, which is normal.
// Source names whose table read the page and the counters the figures came from; Absent
// says why they are null when they are. BadLines counts malformed lines left out of pages
// otherwise read, DroppedValues values dropped as "no value" sentinels (a -1 hit rate).
type ServerCache struct {
	MetricsURL    string   `json:"metrics_url"`
	Scrapes       int      `json:"scrapes"`
	Failures      int      `json:"failures"`
	FirstError    string   `json:"first_error,omitempty"`
	QueriedTokens *float64 `json:"queried_tokens"`
	HitTokens     *float64 `json:"hit_tokens"`
	// QueriedBlocks and HitBlocks hold the counters instead where the engine counts KV
	// blocks, not tokens (vLLM's early v1); the hit rate is then theirs, a share of blocks.
	QueriedBlocks *float64 `json:"queried_blocks,omitempty"`
	HitBlocks     *float64 `json:"hit_blocks,omitempty"`
	Source        string   `json:"source,omitempty"`
	Absent        string   `json:"absent,omitempty"`
	BadLines      int      `json:"bad_lines,omitempty"`
	DroppedValues int      `json:"dropped_values,omitempty"`
	// Samples counts the values of the table's series read over the run, every scrape's;
	// ReadAs names the table (the engine's Names.Source). Nil for runs written before they
	// were counted. Zero samples is what server_metrics's note reports.
	Samples *int   `json:"samples,omitempty"`
	ReadAs  string `json:"read_as,omitempty"`
	// SpecDecode is speculative decoding over the run, where the engine serves its counters.
	SpecDecode *SpecDecode `json:"spec_decode,omitempty"`
}

// SpecDecode is the increase of the engine's draft and accepted token counters over the run
// and the acceptance rate they give (accepted over drafted, in percent, as vLLM's own log
// line reports it), nil without drafts.
type SpecDecode struct {
	DraftTokens    float64  `json:"draft_tokens"`
	AcceptedTokens float64  `json:"accepted_tokens"`
	AcceptancePct  *float64 `json:"acceptance_pct"`
	// Source names the page's counters the figures came from.
	Source string `json:"source,omitempty"`
}

// NewSpecDecode is the figures of two counters' increases.
func NewSpecDecode(draft, accepted float64) *SpecDecode {
	s := &SpecDecode{DraftTokens: draft, AcceptedTokens: accepted}
	if draft > 0 {
		v := round3(100 * accepted / draft)
		s.AcceptancePct = &v
	}
	return s
}

// HitPct is HitTokens / QueriedTokens in percent (HitBlocks / QueriedBlocks where the engine
// counts blocks), nil without both or without queries.
func (c *ServerCache) HitPct() *float64 {
	if c == nil {
		return nil
	}
	q, h := c.QueriedTokens, c.HitTokens
	if q == nil && h == nil {
		q, h = c.QueriedBlocks, c.HitBlocks
	}
	if q == nil || h == nil || !(*q > 0) {
		return nil
	}
	v := round3(100 * *h / *q)
	return &v
}

// IdealCache is the hit rate an infinite prefix cache would reach on the prompts sent, in send
// order: a block hits when its hash was seen before and every block before it in the prompt hit
// (the figure `replay cache-sim` prints is BlockHitPct). HitPct weighs hits by tokens as the
// measured rates do: a request's hit tokens are its hit blocks times the block size, at most all
// of its prompt tokens but the last (which an engine always computes). Prefixes a trace does not hash (earlier turns of a session, a chat template's
// preamble) are not counted, so a measured rate may exceed it by that much.
type IdealCache struct {
	// BlockSize is the tokens per block, 0 when the prompts' block sizes differed.
	BlockSize    int     `json:"block_size"`
	Blocks       int64   `json:"blocks"`
	HitBlocks    int64   `json:"hit_blocks"`
	BlockHitPct  float64 `json:"block_hit_pct"`
	PromptTokens int64   `json:"prompt_tokens"`
	HitTokens    int64   `json:"hit_tokens"`
	HitPct       float64 `json:"hit_pct"`
	// Logged is what the log itself says was cached, where its records say (a gateway's or
	// engine's cached-token counts), nil otherwise.
	Logged *LoggedCache `json:"logged,omitempty"`
}

// LoggedCache is the log's own prefix-cache hit rate over the requests sent that logged their
// cached prompt tokens: their cached tokens over their prompt tokens (each capped as sent).
// A replay of prefixes synthesized from those counts should measure the same rate.
type LoggedCache struct {
	Requests     int64   `json:"requests"`
	PromptTokens int64   `json:"prompt_tokens"`
	CachedTokens int64   `json:"cached_tokens"`
	HitPct       float64 `json:"hit_pct"`
}

// IdealCounter computes an IdealCache prompt by prompt.
type IdealCounter struct {
	c      *prefixcache.Cache
	res    IdealCache
	bs     int
	logged LoggedCache
}

// NewIdealCounter returns an empty counter with an infinite cache.
func NewIdealCounter() *IdealCounter { return &IdealCounter{c: prefixcache.New(0), bs: -1} }

// Add runs one prompt through the cache: its block hashes (only those whose blocks the prompt
// holds), the tokens per block and the prompt's tokens.
func (ic *IdealCounter) Add(hashes []uint64, blockSize, promptTokens int) {
	hits := ic.c.Add(hashes)
	ic.res.Blocks += int64(len(hashes))
	ic.res.HitBlocks += int64(hits)
	ic.res.PromptTokens += int64(max(promptTokens, 0))
	// An engine computes at least a prompt's last token, so no more than all but one can hit
	// (vLLM and the simulator then give up that token's whole block, at most one of their
	// blocks per such prompt below this figure).
	ic.res.HitTokens += int64(min(max(hits*blockSize, 0), max(promptTokens-1, 0)))
	if len(hashes) > 0 {
		switch ic.bs {
		case -1:
			ic.bs = blockSize
		case blockSize:
		default:
			ic.bs = 0
		}
	}
}

// AddLogged counts one prompt's logged cached tokens (nil: the log does not say) against its
// prompt tokens as sent.
func (ic *IdealCounter) AddLogged(cached *int, promptTokens int) {
	if cached == nil {
		return
	}
	ic.logged.Requests++
	ic.logged.PromptTokens += int64(max(promptTokens, 0))
	ic.logged.CachedTokens += int64(min(max(*cached, 0), max(promptTokens, 0)))
}

// Result returns the figures so far, nil when no prompt had block hashes (nothing to say).
func (ic *IdealCounter) Result() *IdealCache {
	if ic.res.Blocks == 0 {
		return nil
	}
	r := ic.res
	if ic.logged.Requests > 0 {
		l := ic.logged
		l.HitPct = pct(l.CachedTokens, l.PromptTokens)
		r.Logged = &l
	}
	r.BlockSize = max(ic.bs, 0)
	r.BlockHitPct = pct(r.HitBlocks, r.Blocks)
	r.HitPct = pct(r.HitTokens, r.PromptTokens)
	return &r
}
