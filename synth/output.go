package synth

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/llm-replay/replay/chat"
)

// jsonRequest is the line `replay synth` writes per request. It holds nothing machine-specific
// (no paths, no times of day), so the same trace and seed give byte-identical files anywhere.
type jsonRequest struct {
	Index       int            `json:"index"`
	Line        int64          `json:"line,omitempty"`
	TimestampNS int64          `json:"timestamp_ns"`
	SessionID   string         `json:"session_id,omitempty"`
	API         API            `json:"api"`
	Prompt      string         `json:"prompt"`
	Messages    []chat.Message `json:"messages,omitempty"`
	PromptIDs   []int          `json:"prompt_ids"`
	// PromptTokens is the count the server should report: len(prompt_ids).
	PromptTokens int      `json:"prompt_tokens"`
	MaxTokens    int      `json:"max_tokens"`
	BlockHashes  []uint64 `json:"block_hashes"`
	Capped       bool     `json:"capped,omitempty"`
}

// Writer writes requests as JSON lines.
type Writer struct {
	w   *bufio.Writer
	enc *json.Encoder
	api API
}

// NewWriter returns a Writer for requests built for api; call Flush at the end.
func NewWriter(w io.Writer, api API) *Writer {
	bw := bufio.NewWriterSize(w, 1<<20)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if api == "" {
		api = APICompletions
	}
	return &Writer{w: bw, enc: enc, api: api}
}

// Write writes one request as a JSON line.
func (w *Writer) Write(r Request) error {
	hashes := r.BlockHashes
	if hashes == nil {
		hashes = []uint64{}
	}
	err := w.enc.Encode(jsonRequest{
		Index:        r.Index,
		Line:         r.Record.Line,
		TimestampNS:  int64(r.Record.Timestamp),
		SessionID:    r.Record.SessionID,
		API:          w.api,
		Prompt:       r.Prompt,
		Messages:     r.Messages,
		PromptIDs:    r.PromptIDs,
		PromptTokens: r.TargetPromptTokens,
		MaxTokens:    r.MaxTokens,
		BlockHashes:  hashes,
		Capped:       r.Capped,
	})
	if err != nil {
		return fmt.Errorf("synth: writing request %d: %w", r.Index, err)
	}
	return nil
}

// Flush writes out buffered lines.
func (w *Writer) Flush() error { return w.w.Flush() }
