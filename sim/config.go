package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/llm-replay/replay/media"
)

// Counter counts the tokens of a text. synth/tokenizer's Tokenizer satisfies it; sim defines its
// own one-method interface so that it does not depend on synth.
type Counter interface {
	Count(text string) int
}

// Message is one chat message as the simulator sees it: the text parts of its content joined,
// and the parts of tool use that chat templates render, so that a ChatCounter counts them: an
// assistant turn's tool_calls (the JSON list as sent; nil when it has none) and a tool answer's
// tool_call_id.
type Message struct {
	Role       string
	Name       string
	Content    string
	ToolCalls  json.RawMessage
	ToolCallID string
	// Images are the message's images (chat's image_url parts, the Responses and Messages
	// APIs' image parts: apiimages.go), counted by Config.Images, and Audio its input_audio
	// parts, counted by Config.Audio; the template sees Content, the text parts one after the
	// other.
	Images []Image
	Audio  []Clip
}

// Faults are the injected failure rates. Each request gets at most one fault, drawn once from
// Config.Seed and its X-Request-Id header when it carries one (see Faults.Draw), else its
// arrival number, so the same seed gives the same faults. The rates sum to at most 1.
type Faults struct {
	// ErrorRate is the fraction of requests answered with HTTP 500.
	ErrorRate float64
	// RateLimitRate is the fraction answered with HTTP 429.
	RateLimitRate float64
	// BreakRate is the fraction whose connection is closed half-way through the answer.
	BreakRate float64
	// StallRate is the fraction that stall for Stall at StallAt, then answer normally.
	StallRate float64
	// Stall is how long a stalled request stalls. With StallAt first-token, 0 means until the
	// client goes away; with first-byte it must be > 0 when StallRate is.
	Stall time.Duration
	// StallAt is where a stall happens: StallFirstByte ("" too) before anything is written, or
	// StallFirstToken after the response headers and the first content chunk.
	StallAt string
	// GarbageRate is the fraction answered HTTP 200 with text/event-stream frames that are not
	// JSON, then data: [DONE].
	GarbageRate float64
	// RetryAfter, when > 0, is sent as a Retry-After header (whole seconds, rounded up, at
	// least 1) on every 429 (injected or queue full) and 503 answer.
	RetryAfter time.Duration
}

// Where a stalled request stalls (Faults.StallAt).
const (
	StallFirstByte  = "first-byte"
	StallFirstToken = "first-token"
)

// stallsAtFirstToken reports whether stalls come after the first chunk rather than before the
// first byte.
func (f Faults) stallsAtFirstToken() bool { return f.StallAt == StallFirstToken }

// Config configures a simulated engine. DefaultConfig gives a small GPU serving a 7-8B model.
type Config struct {
	// ModelName is the served model id listed by /v1/models. Requests may name any model; the
	// answer echoes the requested name (or ModelName when the request names none).
	ModelName string
	// Tokenizer names the tokenizer the simulator counts with (its folder or repository id),
	// listed as the model's root by /v1/models as vLLM lists the model path it loaded;
	// TokenizerSHA256 its content's digest, listed beside it. Empty: the model's name, none.
	Tokenizer       string
	TokenizerSHA256 string
	// MaxLoras is how many LoRA adapters (Models with Adapter set) can be in the running batch
	// at once (vLLM's --max-loras); a request whose adapter finds no slot waits while others
	// run. AdapterLoad is the time to load an adapter into a slot, charged in the step that
	// admits its first request after it was not loaded (adapters.go).
	MaxLoras    int
	AdapterLoad time.Duration
	// adapter: this configuration is a Model's that is an adapter (servedModels);
	// servesAdapters: some Model is one, so the batch's adapters are counted (adapters.go).
	adapter, servesAdapters bool
	// Models are the other models served beside ModelName, each counted by its own
	// tokenizer (models.go); with any, a request naming a model served by neither is
	// answered 404 as vLLM answers it.
	Models []Model
	// ZeroCost answers as fast as possible with no modeled delay and no engine (so no queue, no
	// 429 from it, and cached_tokens is always 0), writing a whole answer in a few writes; it
	// exists to measure the client.
	ZeroCost bool
	// TokenDelay, in zero-cost mode, is the time between one streamed chunk and the next (the
	// first goes at once): a fixed decode speed with no engine and no queue, so a client's
	// cost of holding many open streams can be measured apart from any model. 0 writes the
	// whole answer at once.
	TokenDelay time.Duration
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
	// EmbeddingDimensions is the length of the vectors /v1/embeddings answers with (a request's
	// dimensions may ask for fewer); 0 means 1024.
	EmbeddingDimensions int

	// PrefillPerToken is the time per uncached prompt token prefilled in a step.
	PrefillPerToken time.Duration
	// EncodePerMediaToken is the vision or audio encoder's time per token of a request's
	// images and clips, charged in the step that starts its prefill (an engine runs a
	// request's encoder before its first prefill chunk), besides their prefill. The default is
	// a cost model's guess of the order of a prefill token, no measurement of an engine.
	EncodePerMediaToken time.Duration
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
	// StructuredDecodeFactor is how many decode steps one token of a constrained request
	// (Request.Structured: response_format JSON, tools, vLLM's guided fields) takes on average,
	// so its inter-token time is this many times a plain one's; the steps themselves, and so
	// every other request, are not slowed. Guided decoding computes a grammar mask over the
	// vocabulary for every token: with the older backends (outlines, lm-format-enforcer) that is
	// often several times slower per token, with xgrammar or llguidance tens of percent or less
	// on simple schemas (the XGrammar paper; JSONSchemaBench, Geng et al. 2025). The default
	// 1.5 sits between. 0 or 1 means no slowdown; resolution 0.001, at most 100.
	StructuredDecodeFactor float64

	Faults Faults

	// Counter counts prompt text tokens. Nil means the approximation ApproxCounter (4 bytes per
	// token), which is documented as approximate; pass the served model's tokenizer for truth.
	Counter Counter
	// ChatCounter, when set, returns the prompt tokens the server sees for a chat request, chat
	// template included: its messages and its tools (Request.Tools, the list as sent; nil when
	// it offers none), which templates render into the prompt. Nil means the sum of Counter
	// over contents, tool calls and tools + 3 per message + 3.
	ChatCounter func(messages []Message, tools json.RawMessage) (int, error)
	// Images counts a chat message's images (their tokens added to the chat count and so to
	// prefill); nil refuses a request with an image.
	Images media.Rule
	// Audio counts a chat message's audio clips as Images does images; nil refuses a request
	// with a clip.
	Audio media.AudioRule
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
		ModelName:           "replay-sim",
		Seed:                1,
		BlockSize:           16,
		NumBlocks:           16384,
		MaxBatch:            256,
		TokenBudget:         8192,
		MaxWaiting:          4096,
		MaxModelLen:         262144,
		DefaultMaxTokens:    256,
		TokensPerChunk:      1,
		PrefillPerToken:     20 * time.Microsecond,
		EncodePerMediaToken: 10 * time.Microsecond,
		MaxLoras:            4,
		AdapterLoad:         20 * time.Millisecond,
		StepBase:            15 * time.Millisecond,
		StepPerSeq:          50 * time.Microsecond,
		StepPerKVToken:      50 * time.Nanosecond,
		Jitter:              0.02,

		StructuredDecodeFactor: 1.5,
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
		{"MaxLoras", c.MaxLoras},
	}
	for _, p := range pos {
		if p.v <= 0 {
			return fmt.Errorf("sim config: %s must be > 0, got %d", p.name, p.v)
		}
	}
	if c.EmbeddingDimensions < 0 || c.EmbeddingDimensions > maxEmbeddingDimensions {
		return fmt.Errorf("sim config: EmbeddingDimensions must be in [0, %d] (0 is %d), got %d", maxEmbeddingDimensions, defaultEmbeddingDimensions, c.EmbeddingDimensions)
	}
	durs := []struct {
		name string
		v    time.Duration
	}{
		{"PrefillPerToken", c.PrefillPerToken}, {"EncodePerMediaToken", c.EncodePerMediaToken}, {"AdapterLoad", c.AdapterLoad}, {"StepBase", c.StepBase}, {"StepPerSeq", c.StepPerSeq},
		{"StepPerKVToken", c.StepPerKVToken}, {"Faults.Stall", c.Faults.Stall},
		{"Faults.RetryAfter", c.Faults.RetryAfter},
	}
	for _, d := range durs {
		if d.v < 0 {
			return fmt.Errorf("sim config: %s must be >= 0, got %v", d.name, d.v)
		}
	}
	if c.TokenDelay < 0 || (c.TokenDelay > 0 && !c.ZeroCost) {
		return fmt.Errorf("sim config: TokenDelay %v: want 0, or > 0 with ZeroCost (the engine's own steps set its pace)", c.TokenDelay)
	}
	if !c.ZeroCost && c.StepBase+c.StepPerSeq+c.PrefillPerToken <= 0 {
		return fmt.Errorf("sim config: a step must take time (StepBase, StepPerSeq or PrefillPerToken > 0) unless ZeroCost is set")
	}
	if c.Jitter < 0 || c.Jitter >= 1 {
		return fmt.Errorf("sim config: Jitter must be in [0,1), got %v", c.Jitter)
	}
	if f := c.StructuredDecodeFactor; f != 0 && !(f >= 1 && f <= maxStructuredDecodeFactor) {
		return fmt.Errorf("sim config: StructuredDecodeFactor must be 0 (no slowdown) or in [1,%d], got %v", maxStructuredDecodeFactor, f)
	}
	return c.Faults.validate()
}

// maxStructuredDecodeFactor bounds the slowdown of constrained decoding: beyond it a setting is
// surely a slip (and the fixed-point credit stays small).
const maxStructuredDecodeFactor = 100

// tokenCost is the decode work of one token in decodeUnits, for a constrained request or not.
func (c *Config) tokenCost(structured bool) int {
	if !structured || c.StructuredDecodeFactor <= 1 {
		return decodeUnit
	}
	return int(math.Round(c.StructuredDecodeFactor * decodeUnit))
}

// rateSlack absorbs the rounding of a sum of decimal rates (0.34+0.56+0.1 is 1.0000000000000002).
const rateSlack = 1e-9

// validate reports the first impossible fault setting: the rates must each be in [0,1] and,
// since a request gets at most one fault, sum to at most 1.
func (f Faults) validate() error {
	rates := []struct {
		name string
		v    float64
	}{
		{"Faults.ErrorRate", f.ErrorRate}, {"Faults.RateLimitRate", f.RateLimitRate},
		{"Faults.BreakRate", f.BreakRate}, {"Faults.StallRate", f.StallRate},
		{"Faults.GarbageRate", f.GarbageRate},
	}
	sum := 0.0
	for _, r := range rates {
		if r.v < 0 || r.v > 1 || r.v != r.v {
			return fmt.Errorf("sim config: %s must be in [0,1], got %v", r.name, r.v)
		}
		sum += r.v
	}
	if sum > 1+rateSlack {
		return fmt.Errorf("sim config: each request gets at most one fault, so the fault rates (error %v + rate limit %v + break %v + stall %v + garbage %v) must sum to at most 1, got %v",
			f.ErrorRate, f.RateLimitRate, f.BreakRate, f.StallRate, f.GarbageRate, sum)
	}
	switch f.StallAt {
	case "", StallFirstByte:
		if f.StallRate > 0 && f.Stall == 0 {
			return fmt.Errorf("sim config: Faults.StallRate %v stalls requests before their first byte for Faults.Stall, which is 0: set Stall > 0, or StallAt %q (where 0 means until the client goes away)", f.StallRate, StallFirstToken)
		}
	case StallFirstToken:
	default:
		return fmt.Errorf("sim config: Faults.StallAt must be %q or %q, got %q", StallFirstByte, StallFirstToken, f.StallAt)
	}
	return nil
}

// ApproxCounter counts tokens as ceil(bytes/4), the usual rule of thumb for English text with a
// BPE tokenizer. It is an approximation; give Config.Counter a real tokenizer for exact counts.
type ApproxCounter struct{}

// Count returns ceil(len(text)/4).
func (ApproxCounter) Count(text string) int { return (len(text) + 3) / 4 }
