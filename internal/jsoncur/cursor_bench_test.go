package jsoncur

import (
	"strings"
	"testing"
)

// benchLines are the shapes the walkers read: an SSE chunk (short keys and strings), a chat
// request log line (long escaped strings) and a Mooncake trace row (numbers).
var benchLines = map[string]string{
	"frame": `{"id":"chatcmpl-8d1c6e0b2f4a4a0e9b1f","object":"chat.completion.chunk","created":1732870000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" token1"},"logprobs":null,"finish_reason":null}]}`,
	"log": `{"timestamp":"2026-03-01T09:00:00.5Z","request":{"model":"qwen3","messages":[` +
		strings.Repeat(`{"role":"user","content":"`+strings.Repeat(`Some text with a \"quote\", a newline\n and caf\u00e9. `, 12)+`"},`, 7) +
		`{"role":"user","content":"end"}]},"response":{"usage":{"prompt_tokens":1200,"completion_tokens":80}}}`,
	"trace": `{"timestamp": 27482, "input_length": 6955, "output_length": 52, "hash_ids": [46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 2353, 2354]}`,
}

// BenchmarkSkip checks and skips each line whole.
func BenchmarkSkip(b *testing.B) {
	for _, name := range []string{"frame", "log", "trace"} {
		line := []byte(benchLines[name])
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				c := New(line)
				c.Skip()
				if c.End() != nil {
					b.Fatal(c.End())
				}
			}
		})
	}
}
