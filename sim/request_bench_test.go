package sim

import "testing"

// BenchmarkParseRequest is the parser's share of a zero-cost request.
func BenchmarkParseRequest(b *testing.B) {
	body := []byte(`{"model":"meta-llama/Llama-3.1-8B-Instruct","messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"Write a haiku about the sea, please, and keep it short."}],"max_tokens":128,"stream":true,"stream_options":{"include_usage":true}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseRequest(body, true, 16); err != nil {
			b.Fatal(err)
		}
	}
}
