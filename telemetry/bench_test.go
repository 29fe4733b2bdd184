package telemetry

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/llm-replay/replay/results"
)

// BenchmarkExporter is the exporter's CPU per request: a row turned into a span, batched,
// encoded and sent over OTLP/HTTP to a loopback receiver that reads and drops it, the last
// flush (Close) included. The sink's goroutine pays Add; the SDK's batcher the rest.
func BenchmarkExporter(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	tr := NewTraces("bench", "")
	rows := make([]results.Row, 1024)
	for i := range rows {
		id := tr.TraceID(strconv.Itoa(i))
		rows[i] = results.Row{RequestID: strconv.Itoa(i), API: "chat", SentNS: int64(i) * 1e6, FirstTokenNS: int64(i)*1e6 + 5e7,
			DoneNS: int64(i)*1e6 + 9e8, PromptTokens: 1000, CompletionTokens: 200, TargetOutputTokens: 200, HTTPStatus: 200,
			TraceID: hex.EncodeToString(id[:]), FinishReason: "length", Endpoint: "e", Population: "stream/plain"}
	}
	e, err := New(Config{Endpoint: srv.URL, RunID: "bench", Model: "m"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		e.Add(&rows[i%len(rows)])
	}
	if err := e.Close(); err != nil {
		b.Fatal(err)
	}
	if ok, failed, _ := e.sent.account(); ok+failed != int64(b.N) {
		b.Fatalf("%d of %d spans exported (%d failed)", ok, b.N, failed)
	}
}
