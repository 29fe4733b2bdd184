package gen

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"

	"github.com/llm-replay/replay/trace"
)

// WriteJSONL writes the trace cfg describes as Mooncake JSONL, one request a line in time
// order: {"timestamp": ms, "input_length", "output_length", "hash_ids": [...]}, spaced like
// the Mooncake release, plus "session_id" and "turn" on the turns of multi-turn sessions
// (vLLM's, SGLang's and AIPerf's Mooncake readers ignore keys they do not know).
func WriteJSONL(w io.Writer, cfg Config) error {
	recs, err := Records(cfg)
	if err != nil {
		return err
	}
	return WriteRecords(w, recs)
}

// WriteRecords writes records (Records' own, or any) as WriteJSONL does, timestamps in whole
// milliseconds; `replay gen` uses it to summarize and write one generated trace.
func WriteRecords(w io.Writer, recs []trace.Record) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var line []byte
	for i := range recs {
		line = appendLine(line[:0], &recs[i])
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// appendLine encodes one record by hand, faster than encoding/json and with turn 0 written
// (an omitempty struct tag would drop it); only a session id that needs escaping goes through
// encoding/json.
func appendLine(b []byte, r *trace.Record) []byte {
	b = append(b, `{"timestamp": `...)
	b = strconv.AppendInt(b, r.Timestamp.Milliseconds(), 10)
	b = append(b, `, "input_length": `...)
	b = strconv.AppendInt(b, int64(r.PromptTokens), 10)
	b = append(b, `, "output_length": `...)
	b = strconv.AppendInt(b, int64(r.OutputTokens), 10)
	b = append(b, `, "hash_ids": [`...)
	for i, h := range r.BlockHashes {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendUint(b, h, 10)
	}
	b = append(b, ']')
	if r.SessionID != "" {
		b = append(b, `, "session_id": `...)
		b = appendString(b, r.SessionID)
		b = append(b, `, "turn": `...)
		b = strconv.AppendInt(b, int64(r.Turn), 10)
	}
	return append(b, "}\n"...)
}

func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
