package requestlog

import (
	"bufio"
	"encoding/json"
	"io"
	"time"

	"github.com/llm-replay/replay/trace"
)

// MooncakeWriter writes Requests in the Mooncake JSONL shape that vLLM's, SGLang's and AIPerf's
// trace modes read: {"timestamp": ms from the first request, "input_length", "output_length",
// "hash_ids"}, with the keyed block hashes renumbered densely (0, 1, 2, ...) in order of first
// appearance, so equal ids still mean equal blocks but the numbers say nothing of the content.
// Requests carrying text (Options.KeepText) also get "prompt" and "response", and a request
// with options (trace.Options: streaming, sampling, tools, outcome) gets them as an "options"
// object, which ingest's Mooncake reader reads back into Record.Options.
type MooncakeWriter struct {
	w   *bufio.Writer
	enc *json.Encoder
	ids map[uint64]int
}

// NewMooncakeWriter writes to w; call Flush at the end.
func NewMooncakeWriter(w io.Writer) *MooncakeWriter {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false) // kept text stays readable: <|im_start|>, not \u003c|im_start|\u003e
	return &MooncakeWriter{w: bw, enc: enc, ids: map[uint64]int{}}
}

type mooncakeLine struct {
	Timestamp    int64          `json:"timestamp"`
	InputLength  int            `json:"input_length"`
	OutputLength int            `json:"output_length"`
	HashIDs      []int          `json:"hash_ids"`
	Prompt       string         `json:"prompt,omitempty"`
	Response     string         `json:"response,omitempty"`
	Options      *trace.Options `json:"options,omitempty"`
}

// Write adds one request as a line.
func (m *MooncakeWriter) Write(r Request) error {
	l := mooncakeLine{
		Timestamp:    int64(r.Timestamp / time.Millisecond),
		InputLength:  r.PromptTokens,
		OutputLength: r.OutputTokens,
		HashIDs:      make([]int, len(r.BlockHashes)),
		Prompt:       r.Prompt,
		Response:     r.Response,
		Options:      r.Options,
	}
	for i, h := range r.BlockHashes {
		id, ok := m.ids[h]
		if !ok {
			id = len(m.ids)
			m.ids[h] = id
		}
		l.HashIDs[i] = id
	}
	return m.enc.Encode(l) // one line, newline-terminated
}

// Flush writes what is buffered.
func (m *MooncakeWriter) Flush() error { return m.w.Flush() }
