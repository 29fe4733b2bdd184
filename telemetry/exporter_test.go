package telemetry

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/llm-replay/replay/results"
)

// receiver is a loopback OTLP/HTTP endpoint decoding what it is sent with the OTLP protobuf
// types (the protocol's own definition).
type receiver struct {
	mu    sync.Mutex
	spans []*tracepb.Span
	res   []string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req collectortrace.ExportTraceServiceRequest
	if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	for _, rs := range req.ResourceSpans {
		for _, a := range rs.Resource.Attributes {
			rc.res = append(rc.res, a.Key+"="+a.Value.GetStringValue())
		}
		for _, ss := range rs.ScopeSpans {
			rc.spans = append(rc.spans, ss.Spans...)
		}
	}
	rc.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	_, _ = w.Write(out)
}

// TestExporterSpans: each row becomes one span with the row's trace id, the span id its
// traceparent named, the send and done instants on the wall clock, and the GenAI attributes.
func TestExporterSpans(t *testing.T) {
	rc := &receiver{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	var log strings.Builder
	e, err := New(Config{Endpoint: srv.URL, RunID: "r1", Shard: "2/4", Model: "m", Stderr: &log})
	if err != nil {
		t.Fatal(err)
	}
	origin := time.Unix(1_700_000_000, 0)
	e.SetOrigin(false, origin)
	tr := NewTraces("r1", "")
	rows := make([]results.Row, 3)
	for i := range rows {
		id := tr.TraceID(string(rune('a' + i)))
		rows[i] = results.Row{RequestID: string(rune('a' + i)), API: "chat", SentNS: int64(i) * 1e6, FirstTokenNS: int64(i)*1e6 + 5e5,
			DoneNS: int64(i)*1e6 + 9e5, PromptTokens: 100 + int32(i), CompletionTokens: 7, TargetOutputTokens: 7,
			TraceID: hex.EncodeToString(id[:]), FinishReason: "length", HTTPStatus: 200}
	}
	rows[2].ErrorClass = "http_5xx"
	for i := range rows {
		e.Add(&rows[i])
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "3 of 3 spans exported") {
		t.Errorf("account: %q", log.String())
	}
	if len(rc.spans) != 3 {
		t.Fatalf("%d spans, want 3", len(rc.spans))
	}
	for _, s := range rc.spans {
		attrs := map[string]string{}
		for _, a := range s.Attributes {
			attrs[a.Key] = a.Value.String()
		}
		var r *results.Row
		for i := range rows {
			if hex.EncodeToString(s.TraceId) == rows[i].TraceID {
				r = &rows[i]
			}
		}
		if r == nil {
			t.Fatalf("span of trace %x matches no row", s.TraceId)
		}
		want := SpanID([16]byte(s.TraceId), 0)
		if string(s.SpanId) != string(want[:]) || s.Name != "chat m" || s.Kind != tracepb.Span_SPAN_KIND_CLIENT {
			t.Errorf("span %x/%x %q kind %v", s.TraceId, s.SpanId, s.Name, s.Kind)
		}
		if s.StartTimeUnixNano != uint64(origin.UnixNano()+r.SentNS) || s.EndTimeUnixNano != uint64(origin.UnixNano()+r.DoneNS) {
			t.Errorf("%s: start %d end %d", r.RequestID, s.StartTimeUnixNano, s.EndTimeUnixNano)
		}
		for _, k := range []string{"gen_ai.operation.name", "gen_ai.request.model", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.request.max_tokens", "gen_ai.response.finish_reasons", "replay.ttft_s", "replay.lateness_s"} {
			if attrs[k] == "" {
				t.Errorf("%s: no %s in %v", r.RequestID, k, attrs)
			}
		}
		if (r.ErrorClass != "") != (attrs["error.type"] != "") || (r.ErrorClass != "") != (s.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR) {
			t.Errorf("%s: error.type %q, status %v", r.RequestID, attrs["error.type"], s.Status)
		}
	}
	if got := strings.Join(rc.res, ","); !strings.Contains(got, "service.name=replay") || !strings.Contains(got, "replay.run.id=r1") || !strings.Contains(got, "replay.shard=2/4") {
		t.Errorf("resource: %s", got)
	}
}

// TestTraceIDs: one run's ids are stable per request, distinct across requests, endpoints and
// runs (a repeated run draws a new id).
func TestTraceIDs(t *testing.T) {
	a, b := NewTraces("run-a", ""), NewTraces("run-b", "")
	if a.TraceID("1") != NewTraces("run-a", "").TraceID("1") {
		t.Error("not deterministic")
	}
	if a.TraceID("1") == a.TraceID("2") || a.TraceID("1") == b.TraceID("1") || a.TraceID("1") == NewTraces("run-a", "B").TraceID("1") {
		t.Error("ids collide")
	}
	if r1, r2 := NewRunID(), NewRunID(); r1 == r2 || len(r1) != 16 {
		t.Error("run ids")
	}
	id := a.TraceID("1")
	if SpanID(id, 0) == SpanID(id, 1) {
		t.Error("attempts share a span id")
	}
}

func TestTracesURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:4318":            "http://127.0.0.1:4318/v1/traces",
		"http://127.0.0.1:4318/":           "http://127.0.0.1:4318/v1/traces",
		"https://c.example/otlp/v1/traces": "https://c.example/otlp/v1/traces",
	} {
		if got, err := TracesURL(in); err != nil || got != want {
			t.Errorf("TracesURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"127.0.0.1:4318", "grpc://x:4317", "http://u:secret@x:4318"} {
		if _, err := TracesURL(bad); err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("TracesURL(%q): %v", bad, err)
		}
	}
}
