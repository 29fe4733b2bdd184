package sim

import (
	"fmt"
	"time"
)

// Counter counts the tokens of a text. synth/tokenizer's Tokenizer satisfies it; sim defines its
// own one-method interface so that it does not depend on synth.
type Counter interface {
	Count(text string) int
}

// Message is one chat message as the simulator sees it: the text parts of its content joined.
type Message struct {
	Role    string
	Name    string
	Content string
}

// Faults are the injected failure rates; each request draws once from a generator seeded by
// Config.Seed and its arrival number, so the same seed and request order give the same faults.
type Faults struct {
	// ErrorRate is the fraction of requests answered with HTTP 500.
	ErrorRate float64
	// RateLimitRate is the fraction answered with HTTP 429.
	RateLimitRate float64
	// BreakRate is the fraction whose connection is closed half-way through the answer.
	BreakRate float64
	// StallRate is the fraction that wait Stall before their first byte.
	StallRate float64
	Stall     time.Duration
}

// Config configures a simulated engine. DefaultConfig gives a small GPU serving a 7-8B model.
type Config struct {
	// ModelName is the served model id listed by /v1/models. Requests may name any model; the
	// answer echoes the requested name (or ModelName when the request names none).
	ModelName string
	// ZeroCost answers as fast as possible with no modeled delay and no engine (so no queue, no
	// 429 from it, and cached_tokens is always 0), writing a whole answer in a few writes; it
	// exists to measure the client.
	ZeroCost bool
	// Seed drives the step-time jitter and fault injection.
	Seed int64

	// BlockSize is the number of tokens per KV block (and per prefix-cache block).
	BlockSize int
	// NumBlocks is the KV cache capacity in blocks.
	NumBlocks int
	// MaxBatch is the maximum number of running sequences.
	MaxBatch int
	// TokenBudget is the number of tokens one step may process (decode tokens plus prefill
	// chunks), like vLLM's max_num_batched_tokens.
	TokenBudget int
	// MaxWaiting is the waiting-queue length beyond which requests get HTTP 429.
	MaxWaiting int
	// MaxModelLen bounds prompt plus max_tokens; longer requests get HTTP 400.
	MaxModelLen int
	// DefaultMaxTokens is used when a request gives no max_tokens.
	DefaultMaxTokens int
	// TokensPerChunk is the number of tokens per SSE chunk (1 = one chunk per token).
	TokensPerChunk int

	// PrefillPerToken is the time per uncached prompt token prefilled in a step.
	PrefillPerToken time.Duration
	// StepBase is the fixed time of every step (one forward pass).
	StepBase time.Duration
	// StepPerSeq is the added step time per decoding sequence.
	StepPerSeq time.Duration
	// StepPerKVToken is the added step time per KV token resident in running sequences
	// (attention reads the whole context).
	StepPerKVToken time.Duration
	// Jitter is the relative spread of step times: each step lasts d*(1+Jitter*u), u uniform in
	// [-1,1) from the seeded generator.
	Jitter float64

	Faults Faults

	// Counter counts prompt text tokens. Nil means the approximation ApproxCounter (4 bytes per
	// token), which is documented as approximate; pass the served model's tokenizer for truth.
	Counter Counter
	// ChatCounter, when set, returns the prompt tokens the server sees for a chat request, chat
	// template included. Nil means the sum of Counter over contents + 3 per message + 3.
	ChatCounter func(messages []Message) (int, error)
	// Tokenize, when set, turns prompt text into token ids so that prefix-cache blocks are keyed by
	// real token content. Nil means blocks are fixed-size byte chunks of the prompt (approximate).
	// When set, a completions text prompt counts len(Tokenize(text)) tokens (one encode, not
	// two), so it must return the ids the server sees, special tokens included.
	Tokenize func(text string) []int
}

// DefaultConfig returns the defaults: one H100-class GPU serving a 7-8B model (prefill about
// 50k tokens/s, a decode step of 15 ms plus 0.05 ms per sequence, up to 256 running sequences
// like vLLM's default max_num_seqs, 256k tokens of KV cache). The prefill-heavy Mooncake sample
// (47k prompt tokens/s at 1x) needs a faster --prefill-per-token to keep up at 2x.
func DefaultConfig() Config {
	return Config{
		ModelName:        "replay-sim",
		Seed:             1,
		BlockSize:        16,
		NumBlocks:        16384,
		MaxBatch:         256,
		TokenBudget:      8192,
		MaxWaiting:       4096,
		MaxModelLen:      262144,
		DefaultMaxTokens: 256,
		TokensPerChunk:   1,
		PrefillPerToken:  20 * time.Microsecond,
		StepBase:         15 * time.Millisecond,
		StepPerSeq:       50 * time.Microsecond,
		StepPerKVToken:   50 * time.Nanosecond,
		Jitter:           0.02,
	}
}

// validate reports the first impossible setting, naming its field.
func (c Config) validate() error {
	pos := []struct {
		name string
		v    int
	}{
		{"BlockSize", c.BlockSize}, {"NumBlocks", c.NumBlocks}, {"MaxBatch", c.MaxBatch},
		{"TokenBudget", c.TokenBudget}, {"MaxModelLen", c.MaxModelLen},
		{"DefaultMaxTokens", c.DefaultMaxTokens}, {"TokensPerChunk", c.TokensPerChunk},
		{"MaxWaiting", c.MaxWaiting}, // every request waits at least until the next step
	}
	for _, p := range pos {
		if p.v <= 0 {
			return fmt.Errorf("sim config: %s must be > 0, got %d", p.name, p.v)
		}
	}
	durs := []struct {
		name string
		v    time.Duration
	}{
		{"PrefillPerToken", c.PrefillPerToken}, {"StepBase", c.StepBase}, {"StepPerSeq", c.StepPerSeq},
		{"StepPerKVToken", c.StepPerKVToken}, {"Faults.Stall", c.Faults.Stall},
	}
	for _, d := range durs {
		if d.v < 0 {
			return fmt.Errorf("sim config: %s must be >= 0, got %v", d.name, d.v)
		}
	}
	if !c.ZeroCost && c.StepBase+c.StepPerSeq+c.PrefillPerToken <= 0 {
		return fmt.Errorf("sim config: a step must take time (StepBase, StepPerSeq or PrefillPerToken > 0) unless ZeroCost is set")
	}
	if c.Jitter < 0 || c.Jitter >= 1 {
		return fmt.Errorf("sim config: Jitter must be in [0,1), got %v", c.Jitter)
	}
	rates := []struct {
		name string
		v    float64
	}{
		{"Faults.ErrorRate", c.Faults.ErrorRate}, {"Faults.RateLimitRate", c.Faults.RateLimitRate},
		{"Faults.BreakRate", c.Faults.BreakRate}, {"Faults.StallRate", c.Faults.StallRate},
	}
	for _, r := range rates {
		if r.v < 0 || r.v > 1 || r.v != r.v {
			return fmt.Errorf("sim config: %s must be in [0,1], got %v", r.name, r.v)
		}
	}
	sum := c.Faults.ErrorRate + c.Faults.RateLimitRate + c.Faults.BreakRate
	if sum > 1 {
		return fmt.Errorf("sim config: Faults.ErrorRate+RateLimitRate+BreakRate must be <= 1, got %v", sum)
	}
	return nil
}

// ApproxCounter counts tokens as ceil(bytes/4), the usual rule of thumb for English text with a
// BPE tokenizer. It is an approximation; give Config.Counter a real tokenizer for exact counts.
type ApproxCounter struct{}

// Count returns ceil(len(text)/4).
func (ApproxCounter) Count(text string) int { return (len(text) + 3) / 4 }
