package genlog

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/llm-replay/replay/chat"
)

// Truth is what the generator knows about one log line.
type Truth struct {
	// Conversation numbers the conversation the line belongs to (every single-turn request is
	// its own); Turn is the 0-based turn in it.
	Conversation int
	Turn         int
	// Chat says the request is a chat (Messages) rather than a completion (Prompt).
	Chat     bool
	Messages []chat.Message
	Prompt   string
	// Response is the generated text logged in the response (a tool call's content is "");
	// ToolCalls the calls it made, MoreResponses the other choices' texts (n > 1).
	Response      string
	ToolCalls     []chat.ToolCall
	MoreResponses []string

	// The rest is set with Config.Options. Tools is the request's tools array as sent (nil
	// when it offered none) and Body the whole body as logged.
	Tools json.RawMessage
	Body  json.RawMessage
	// Options is the trace.Options JSON a reader keeping text must make of the line (Body
	// aside): the body's options and the logged outcome.
	Options json.RawMessage
	// Unknown lists the body fields (and stream_options members, as stream_options.NAME) that
	// are not options a reader knows.
	Unknown []string
	// Cancelled says the client gave up on the request (the line logs no usage).
	Cancelled bool

	// PromptTokens is the prompt's count as a server counts it (Config.Chat and Tokenizer;
	// logged as usage.prompt_tokens unless cancelled), and OutputTokens the output length the
	// line gives (usage.completion_tokens, else every choice's text encoded): -1 without a
	// model.
	PromptTokens, OutputTokens int
}

// Encoder encodes text as the served model's tokenizer does (synth/tokenizer's Tokenizer).
type Encoder interface {
	Encode(text string, addSpecial bool) []int
}

// Config says what to generate.
type Config struct {
	Seed uint64
	// Options mixes per-request options, tools and outcomes into the log (see the package
	// doc); without them the log is the plain one Generate writes.
	Options bool
	// Chat and Tokenizer, when both set, are the model the log's usage.prompt_tokens are
	// counted with: each chat prompt rendered with Chat (its tools included) and encoded
	// as is, each completion prompt encoded with special tokens.
	Chat      *chat.Renderer
	Tokenizer Encoder
	// MaxParallelCalls bounds the tool calls of one assistant turn (0 means 2): 1 for
	// templates that refuse more, such as Llama 3.1's.
	MaxParallelCalls int
}

// Generate writes n requests of the plain log to w with the given seed and returns their
// ground truth.
func Generate(w io.Writer, n int, seed uint64) ([]Truth, error) {
	return GenerateWith(w, n, Config{Seed: seed})
}

// GenerateWith writes n requests to w as cfg says and returns their ground truth.
func GenerateWith(w io.Writer, n int, cfg Config) ([]Truth, error) {
	g := newGen(cfg)
	bw := bufio.NewWriter(w)
	truths := make([]Truth, 0, n)
	for i := range n {
		t, raw, err := g.request()
		if err != nil {
			return nil, fmt.Errorf("genlog: request %d: %w", i, err)
		}
		bw.Write(raw)
		bw.WriteByte('\n')
		truths = append(truths, t)
	}
	return truths, bw.Flush()
}

// words is the vocabulary the text is drawn from: common English, some code and numbers, and
// a few non-ASCII words so the tokenizer's harder paths run too.
var words = strings.Fields(`the of and to in is that for it as with was on be by this are or from at
an not have which but all they has were their one been can more would will there when who what
so if about into than its only other new some time could these two may first then do any like my
now over such our man me even most made after also did many before must through back years where
much your way well down should because each just those people how too little state good very make
world still own see men work long get here between both life being under never day same another
know while last might us great old year off come since against go came right used take three
system model request server token cache prefix block latency throughput memory kernel batch queue
replay trace engine prompt output input length vector matrix gradient layer attention context
function return value error string number index array object method class module package import
deploy cluster node region bucket config network socket buffer stream packet route handler
customer invoice order payment refund account balance report quarter revenue margin forecast
patient doctor clinic symptom dose treatment study result sample control effect
river mountain forest valley ocean island desert winter summer autumn spring garden kitchen
café naïve résumé Zürich 東京 北京 数据 Привет мир Ελλάδα 🙂 🚀 – — “quoted” ‘single’
0 1 2 3 7 10 16 42 64 100 128 256 512 1024 2048 3.14 0.5 99% $20 #3 @home
x_1 foo_bar getValue() arr[i] i++ a->b {} [] <div> </div> && || != == += :: ...`)

// gen holds the generator's state. r draws everything of the plain log, in the order the first
// version of this generator drew it (so its logs, and the golden counts made from them, stay);
// the options draw from o only, and their text from og.
type gen struct {
	r      *rand.Rand
	cfg    Config
	opt    *optGen // nil for the plain log
	clock  time.Time
	convs  int
	active []*conversation

	systems, docs, popular []string
}

func newGen(cfg Config) *gen {
	g := &gen{r: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5eed)), cfg: cfg}
	g.systems = make([]string, 6)
	for i := range g.systems {
		g.systems[i] = "You are assistant #" + fmt.Sprint(i) + ". " + g.text(60+g.r.IntN(300))
	}
	g.docs = make([]string, 8)
	for i := range g.docs {
		g.docs[i] = "Document " + fmt.Sprint(i) + ":\n\n" + g.text(800+g.r.IntN(1700))
	}
	g.popular = make([]string, 15)
	for i := range g.popular {
		g.popular[i] = g.sentence(8 + g.r.IntN(20))
	}
	if cfg.Options {
		g.opt = newOptGen(cfg)
	}
	g.clock = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	return g
}

func (g *gen) word() string { return words[g.r.IntN(len(words))] }

// sentence is n words with a capital and a stop.
func (g *gen) sentence(n int) string {
	var sb strings.Builder
	for i := range n {
		w := g.word()
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			sb.WriteByte(' ')
		}
		sb.WriteString(w)
		if i > 0 && i < n-1 && g.r.IntN(12) == 0 {
			sb.WriteByte(',')
		}
	}
	sb.WriteString([]string{".", ".", ".", "?", "!", ":"}[g.r.IntN(6)])
	return sb.String()
}

// text is about n words in paragraphs, sometimes with a list or a code block.
func (g *gen) text(n int) string {
	var sb strings.Builder
	for written := 0; written < n; {
		if written > 0 {
			sb.WriteString("\n\n")
		}
		switch g.r.IntN(10) {
		case 0:
			sb.WriteString("```go\nfunc f(x int) int {\n\treturn x*" + fmt.Sprint(g.r.IntN(100)) + "\n}\n```")
			written += 8
		case 1:
			for i := range 3 {
				fmt.Fprintf(&sb, "%d. %s\n", i+1, g.sentence(6))
			}
			written += 20
		default:
			for range 1 + g.r.IntN(4) {
				k := 5 + g.r.IntN(15)
				sb.WriteString(g.sentence(k))
				sb.WriteByte(' ')
				written += k
			}
		}
	}
	return strings.TrimSpace(sb.String())
}

// countTurns is the turn number of a request whose last message is a new user message (or
// tool answers): the number of assistant messages before it.
func countTurns(msgs []chat.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == "assistant" {
			n++
		}
	}
	return n
}
