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
	// Response is the generated text logged in the response.
	Response string
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

// gen holds the generator's state.
type gen struct {
	r *rand.Rand
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

// conversation is one chat in progress.
type conversation struct {
	id       int
	messages []chat.Message
	turns    int // turns to go
}

// line is the JSON shape of one log line.
type line struct {
	Timestamp any            `json:"timestamp"`
	Request   any            `json:"request"`
	Response  map[string]any `json:"response"`
}

// Generate writes n requests to w with the given seed and returns their ground truth.
func Generate(w io.Writer, n int, seed uint64) ([]Truth, error) {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x5eed))}
	systems := make([]string, 6)
	for i := range systems {
		systems[i] = "You are assistant #" + fmt.Sprint(i) + ". " + g.text(60+g.r.IntN(300))
	}
	docs := make([]string, 8)
	for i := range docs {
		docs[i] = "Document " + fmt.Sprint(i) + ":\n\n" + g.text(800+g.r.IntN(1700))
	}
	popular := make([]string, 15)
	for i := range popular {
		popular[i] = g.sentence(8 + g.r.IntN(20))
	}
	bw := bufio.NewWriter(w)
	var active []*conversation
	var truths []Truth
	convs := 0
	clock := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i := range n {
		clock = clock.Add(time.Duration(g.r.ExpFloat64() * float64(300*time.Millisecond)))
		t := Truth{Chat: true}
		var body map[string]any
		switch k := g.r.IntN(100); {
		case len(active) > 0 && k < 55: // the next turn of a chat in progress
			j := g.r.IntN(len(active))
			c := active[j]
			c.messages = append(c.messages, chat.Message{Role: "user", Content: g.text(5 + g.r.IntN(60))})
			t.Conversation, t.Turn = c.id, countTurns(c.messages)
			t.Messages = append([]chat.Message(nil), c.messages...)
			c.turns--
			if c.turns == 0 {
				active = append(active[:j], active[j+1:]...)
			}
			t.Response = g.text(10 + g.r.IntN(150))
			c.messages = append(c.messages, chat.Message{Role: "assistant", Content: t.Response})
		case k < 70: // a popular question, asked again and again (duplicate prompts)
			t.Conversation = convs
			convs++
			t.Messages = []chat.Message{{Role: "system", Content: systems[0]}, {Role: "user", Content: popular[g.r.IntN(len(popular))]}}
			t.Response = g.text(10 + g.r.IntN(100))
		case k < 80: // a plain completion, often continuing a shared document
			t.Conversation, t.Chat = convs, false
			convs++
			t.Prompt = g.text(20 + g.r.IntN(200))
			if g.r.IntN(2) == 0 {
				t.Prompt = docs[g.r.IntN(len(docs))] + "\n\n" + t.Prompt
			}
			t.Response = g.text(5 + g.r.IntN(80))
		default: // a new chat: a shared system prompt (mostly), a question, sometimes a long document
			c := &conversation{id: convs, turns: g.r.IntN(8)}
			convs++
			if g.r.IntN(6) > 0 {
				c.messages = append(c.messages, chat.Message{Role: "system", Content: systems[g.r.IntN(len(systems))]})
			}
			q := g.text(5 + g.r.IntN(80))
			if g.r.IntN(5) == 0 {
				q = docs[g.r.IntN(len(docs))] + "\n\n" + q
			}
			c.messages = append(c.messages, chat.Message{Role: "user", Content: q})
			t.Conversation = c.id
			t.Messages = append([]chat.Message(nil), c.messages...)
			t.Response = g.text(10 + g.r.IntN(150))
			c.messages = append(c.messages, chat.Message{Role: "assistant", Content: t.Response})
			if c.turns > 0 {
				active = append(active, c)
			}
		}
		if t.Chat {
			body = map[string]any{"model": "qwen3-8b", "messages": t.Messages, "max_tokens": 512, "stream": g.r.IntN(2) == 0}
		} else {
			body = map[string]any{"model": "qwen3-8b", "prompt": t.Prompt, "max_tokens": 256}
		}
		l := line{Request: body, Response: map[string]any{}}
		if g.r.IntN(5) == 0 { // epoch seconds instead of RFC3339
			l.Timestamp = json.Number(fmt.Sprintf("%d.%09d", clock.Unix(), clock.Nanosecond()))
		} else {
			l.Timestamp = clock.Format(time.RFC3339Nano)
		}
		if g.r.IntN(10) == 0 { // a body logged as a JSON string
			raw, err := json.Marshal(body)
			if err != nil {
				return nil, err
			}
			l.Request = string(raw)
		}
		if t.Chat {
			l.Response["choices"] = []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": t.Response}, "finish_reason": "stop"}}
		} else {
			l.Response["choices"] = []any{map[string]any{"index": 0, "text": t.Response, "finish_reason": "length"}}
		}
		if g.r.IntN(2) == 0 {
			l.Response["usage"] = map[string]any{"completion_tokens": 5 + g.r.IntN(300)}
		}
		raw, err := json.Marshal(l)
		if err != nil {
			return nil, fmt.Errorf("genlog: request %d: %w", i, err)
		}
		bw.Write(raw)
		bw.WriteByte('\n')
		truths = append(truths, t)
	}
	return truths, bw.Flush()
}

// countTurns is the turn number of a request whose last message is a new user message: the
// number of assistant answers before it.
func countTurns(msgs []chat.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == "assistant" {
			n++
		}
	}
	return n
}
