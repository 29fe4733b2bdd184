package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/llm-replay/replay/results"
)

// Config is what the exporter of one run's endpoint needs.
type Config struct {
	// Endpoint is --otlp-endpoint (TracesURL reads it); "" leaves the endpoint, and every other
	// setting, to the standard OTEL_EXPORTER_OTLP_* variables.
	Endpoint string
	// RunID and Shard ("K/N", "" when not sharded) name the run in the spans' resource;
	// Version is replay's.
	RunID, Shard, Version string
	// Model is the model name requests were sent with (gen_ai.request.model).
	Model string
	// Stderr receives the exporter's account at Close (spans exported, failed, dropped).
	Stderr io.Writer
	// ShutdownTimeout bounds the last flush at Close; 0 means 30 s.
	ShutdownTimeout time.Duration
}

// queueSize is how many finished spans may wait for export: a run's rows come in bursts, and a
// span dropped from a full queue is a request missing from the backend (counted at Close).
const queueSize = 1 << 16

// Exporter is a run Output (runner's sink hands it each finished row, on the sink's goroutine)
// that turns each row into a span and exports it over OTLP/HTTP in batches, on the SDK's own
// goroutine: nothing of it runs on the send path but SetOrigin.
type Exporter struct {
	cfg    Config
	url    string
	tp     *sdktrace.TracerProvider
	tracer trace.Tracer
	sent   *countingExporter
	// origins are the wall-clock instants (Unix ns) of offset 0 of the warmup's rows and the
	// measured rows' (runner's phases each have their own clock).
	origins [2]atomic.Int64
	added   int64
}

// New starts an exporter of cfg's spans (the SDK connects on the first export).
func New(cfg Config) (*Exporter, error) {
	var opts []otlptracehttp.Option
	where := "the OTEL_EXPORTER_OTLP_* endpoint"
	if cfg.Endpoint != "" {
		u, err := TracesURL(cfg.Endpoint)
		if err != nil {
			return nil, err
		}
		opts, where = append(opts, otlptracehttp.WithEndpointURL(u)), u
	}
	client, err := otlptracehttp.New(context.Background(), opts...)
	if err != nil {
		return nil, fmt.Errorf("OTLP exporter: %w", err)
	}
	attrs := []attribute.KeyValue{semconv.ServiceName("replay"), attribute.String("replay.run.id", cfg.RunID)}
	if cfg.Version != "" {
		attrs = append(attrs, semconv.ServiceVersion(cfg.Version))
	}
	if cfg.Shard != "" {
		attrs = append(attrs, attribute.String("replay.shard", cfg.Shard))
	}
	e := &Exporter{cfg: cfg, url: where, sent: &countingExporter{SpanExporter: client}}
	e.tp = sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(e.sent, sdktrace.WithMaxQueueSize(queueSize), sdktrace.WithMaxExportBatchSize(1024), sdktrace.WithBatchTimeout(time.Second)),
		sdktrace.WithResource(resource.NewWithAttributes(semconv.SchemaURL, attrs...)),
		sdktrace.WithIDGenerator(rowIDs{}),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
	)
	e.tracer = e.tp.Tracer("github.com/llm-replay/replay/telemetry")
	now := time.Now().UnixNano()
	e.origins[0].Store(now)
	e.origins[1].Store(now)
	return e, nil
}

// SetOrigin says which wall-clock instant offset 0 of the warmup's (or the measured run's)
// rows is. The sender calls it before each send, so a row's origin is known by the time the
// row is added; it stores only when the origin changed.
func (e *Exporter) SetOrigin(warmup bool, origin time.Time) {
	o := &e.origins[1]
	if warmup {
		o = &e.origins[0]
	}
	if ns := origin.UnixNano(); o.Load() != ns {
		o.Store(ns)
	}
}

// Add queues r's span for export.
func (e *Exporter) Add(r *results.Row) {
	s := rowSpan(r, e.cfg.Model)
	origin := e.origins[1].Load()
	if r.Warmup {
		origin = e.origins[0].Load()
	}
	at := func(ns int64) time.Time { return time.Unix(0, origin+ns) }
	ctx := context.Background()
	if s.hasIDs {
		ctx = context.WithValue(ctx, idsKey{}, spanIDs{trace: s.traceID, span: s.spanID})
	}
	_, span := e.tracer.Start(ctx, s.name, trace.WithTimestamp(at(s.startNS)), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(s.attrs...))
	if s.hasFirstTok {
		span.AddEvent(eventFirstToken, trace.WithTimestamp(at(s.firstNS)))
	}
	if s.status != 0 {
		span.SetStatus(s.status, s.statusMessage)
	}
	span.End(trace.WithTimestamp(at(s.endNS)))
	e.added++
}

// Close flushes the spans still queued, stops the exporter, and writes its account to
// cfg.Stderr. A receiver that refused spans is reported, not returned: the run's own files
// are whole either way.
func (e *Exporter) Close() error {
	timeout := e.cfg.ShutdownTimeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := e.tp.Shutdown(ctx)
	ok, failed, first := e.sent.account()
	if e.cfg.Stderr != nil {
		fmt.Fprintf(e.cfg.Stderr, "replay: OTLP: %d of %d spans exported to %s", ok, e.added, e.url)
		if dropped := e.added - ok - failed; failed > 0 || dropped > 0 {
			fmt.Fprintf(e.cfg.Stderr, " (%d failed, %d dropped", failed, dropped)
			if first != nil {
				fmt.Fprintf(e.cfg.Stderr, "; first failure: %v", first)
			}
			fmt.Fprint(e.cfg.Stderr, ")")
		}
		fmt.Fprintln(e.cfg.Stderr)
		if err != nil && !errors.Is(err, first) {
			fmt.Fprintf(e.cfg.Stderr, "replay: OTLP: shutting the exporter down: %v\n", err)
		}
	}
	return nil
}

// countingExporter counts the spans its exporter took and refused.
type countingExporter struct {
	sdktrace.SpanExporter
	mu         sync.Mutex
	ok, failed int64
	first      error
}

func (c *countingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := c.SpanExporter.ExportSpans(ctx, spans)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.failed += int64(len(spans))
		if c.first == nil {
			c.first = err
		}
	} else {
		c.ok += int64(len(spans))
	}
	return err
}

func (c *countingExporter) account() (ok, failed int64, first error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ok, c.failed, c.first
}
