//go:build !notel

package main

// OpenTelemetry setup of bin/demo-go (modes simple and batch), like the
// OpenTelemetry Go "dice" example: one function builds the three providers,
// sets them as globals and returns one shutdown function whose errors are
// joined.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploggrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/log/global"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

const (
	progName    = "demo-go"
	defaultMode = modeBatch

	scopeName          = "tracetax/demo-go"
	defaultServiceName = "tracetax-demo-go"

	protoGRPC = "grpc"
	protoHTTP = "http/protobuf"

	// Flush budgets at shutdown (see main.go for the HTTP part).
	traceLogShutdownTimeout = 3500 * time.Millisecond
	metricShutdownTimeout   = 3 * time.Second
)

func modeUnsupported(mode string) string {
	switch mode {
	case modeNone:
		return "this binary links the OpenTelemetry SDK; the uninstrumented baseline is bin/demo-go-bare (service.json mode none)"
	case modeEBPF:
		return "mode ebpf is run by bin/demo-go-ebpf (eBPF agent attached to bin/demo-go-bare), not by this binary"
	}
	return ""
}

// protocol returns the OTLP protocol of one signal: the per-signal variable,
// then OTEL_EXPORTER_OTLP_PROTOCOL, then the spec default http/protobuf.
// (The Go exporters do not read these variables themselves.)
func protocol(signal string) string {
	if p := os.Getenv("OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL"); p != "" {
		return p
	}
	if p := os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL"); p != "" {
		return p
	}
	return protoHTTP
}

// defaultEndpoint returns the spec default endpoint URL when no endpoint
// variable applies to the signal, "" otherwise (the exporter reads the
// variables itself then). Needed because the Go exporters default to TLS
// for localhost while the spec default is plain http://localhost:4317/4318.
func defaultEndpoint(signal, proto, path string) string {
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") != "" {
		return ""
	}
	if proto == protoGRPC {
		return "http://localhost:4317"
	}
	return "http://localhost:4318" + path
}

func newTraceExporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	p := protocol("TRACES")
	def := defaultEndpoint("TRACES", p, "/v1/traces")
	if p == protoGRPC {
		var opts []otlptracegrpc.Option
		if def != "" {
			opts = append(opts, otlptracegrpc.WithEndpointURL(def))
		}
		return otlptracegrpc.New(ctx, opts...)
	}
	var opts []otlptracehttp.Option
	if def != "" {
		opts = append(opts, otlptracehttp.WithEndpointURL(def))
	}
	return otlptracehttp.New(ctx, opts...)
}

func newMetricExporter(ctx context.Context) (sdkmetric.Exporter, error) {
	p := protocol("METRICS")
	def := defaultEndpoint("METRICS", p, "/v1/metrics")
	if p == protoGRPC {
		var opts []otlpmetricgrpc.Option
		if def != "" {
			opts = append(opts, otlpmetricgrpc.WithEndpointURL(def))
		}
		return otlpmetricgrpc.New(ctx, opts...)
	}
	var opts []otlpmetrichttp.Option
	if def != "" {
		opts = append(opts, otlpmetrichttp.WithEndpointURL(def))
	}
	return otlpmetrichttp.New(ctx, opts...)
}

func newLogExporter(ctx context.Context) (sdklog.Exporter, error) {
	p := protocol("LOGS")
	def := defaultEndpoint("LOGS", p, "/v1/logs")
	if p == protoGRPC {
		var opts []otlploggrpc.Option
		if def != "" {
			opts = append(opts, otlploggrpc.WithEndpointURL(def))
		}
		return otlploggrpc.New(ctx, opts...)
	}
	var opts []otlploghttp.Option
	if def != "" {
		opts = append(opts, otlploghttp.WithEndpointURL(def))
	}
	return otlploghttp.New(ctx, opts...)
}

// setupTelemetry builds the SDK for mode simple or batch. The returned
// shutdown flushes and stops traces and logs (in parallel), then metrics
// (last, so the SDK's own counters of the final flush are exported too),
// each bounded by a timeout.
func setupTelemetry(ctx context.Context, mode string) (telemetry, func(context.Context) error, error) {
	// The SDK's self-observability metrics (otel.sdk.processor.span.processed
	// with error.type=queue_full, queue size/capacity, exporter counters) are
	// experimental and off unless OTEL_GO_X_OBSERVABILITY=true, which the SDK
	// reads itself. Left off by default: its per-span instruments cut batch
	// mode's max throughput by ~17%, a cost that is not OpenTelemetry's default.

	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithAttributes(attribute.String("service.name", defaultServiceName)),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES (override the above)
	)
	if err != nil {
		return nil, nil, fmt.Errorf("resource: %w", err)
	}

	// Each signal is set up only when it is on (signalOn: OTEL_<signal>_EXPORTER,
	// OTEL_SDK_DISABLED); an off signal keeps the global no-op provider.
	var (
		mp *sdkmetric.MeterProvider
		tp *sdktrace.TracerProvider
		lp *sdklog.LoggerProvider
	)
	fail := func(err error) (telemetry, func(context.Context) error, error) {
		_ = shutdownProviders(context.Background(), tp, lp, mp)
		return nil, nil, err
	}

	// Metrics first: the SDK's self-observability instruments are created
	// from the global MeterProvider when the span/log processors are built.
	if signalOn("METRICS") {
		mexp, err := newMetricExporter(ctx)
		if err != nil {
			return fail(fmt.Errorf("metric exporter: %w", err))
		}
		mp = sdkmetric.NewMeterProvider(
			sdkmetric.WithResource(res),
			sdkmetric.WithReader(sdkmetric.NewPeriodicReader(mexp)), // OTEL_METRIC_EXPORT_INTERVAL / _TIMEOUT
		)
		otel.SetMeterProvider(mp)
	}

	if signalOn("TRACES") {
		texp, err := newTraceExporter(ctx)
		if err != nil {
			return fail(fmt.Errorf("trace exporter: %w", err))
		}
		var spanProc sdktrace.SpanProcessor
		if mode == modeSimple {
			spanProc = sdktrace.NewSimpleSpanProcessor(texp)
		} else {
			spanProc = sdktrace.NewBatchSpanProcessor(texp) // OTEL_BSP_* read by the SDK
		}
		tp = sdktrace.NewTracerProvider( // OTEL_TRACES_SAMPLER / _ARG read by the SDK
			sdktrace.WithResource(res),
			sdktrace.WithSpanProcessor(spanProc),
		)
		otel.SetTracerProvider(tp)
	}
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))

	if signalOn("LOGS") {
		lexp, err := newLogExporter(ctx)
		if err != nil {
			return fail(fmt.Errorf("log exporter: %w", err))
		}
		var logProc sdklog.Processor
		if mode == modeSimple {
			logProc = sdklog.NewSimpleProcessor(lexp)
		} else {
			logProc = sdklog.NewBatchProcessor(lexp) // OTEL_BLRP_* read by the SDK
		}
		lp = sdklog.NewLoggerProvider(sdklog.WithResource(res), sdklog.WithProcessor(logProc))
		global.SetLoggerProvider(lp)
	}

	meter := otel.Meter(scopeName)
	requests, err := meter.Int64Counter("tracetax.demo.requests",
		metric.WithUnit("{request}"), metric.WithDescription("Number of /work requests served."))
	if err != nil {
		return fail(err)
	}
	duration, err := meter.Float64Histogram("tracetax.demo.request.duration",
		metric.WithUnit("s"), metric.WithDescription("Duration of the /work handler."),
		metric.WithExplicitBucketBoundaries(0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005,
			0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
	if err != nil {
		return fail(err)
	}
	routeAttrs := attribute.NewSet(attribute.String("http.route", "/work"))

	t := &otelTelemetry{
		tracer:   otel.Tracer(scopeName),
		logger:   global.GetLoggerProvider().Logger(scopeName),
		requests: requests,
		duration: duration,
		addOpt:   []metric.AddOption{metric.WithAttributeSet(routeAttrs)},
		recOpt:   []metric.RecordOption{metric.WithAttributeSet(routeAttrs)},
	}

	shutdown := func(context.Context) error { return shutdownProviders(context.Background(), tp, lp, mp) }
	return t, shutdown, nil
}

// shutdownProviders flushes and stops the providers that were set up (nil
// ones were off): traces and logs in parallel, then metrics (last, so the
// SDK's own counters of the final flush are exported too), each bounded by a
// timeout; their errors are joined.
func shutdownProviders(_ context.Context, tp *sdktrace.TracerProvider, lp *sdklog.LoggerProvider, mp *sdkmetric.MeterProvider) error {
	var (
		wg         sync.WaitGroup
		terr, lerr error
	)
	ctx, cancel := context.WithTimeout(context.Background(), traceLogShutdownTimeout)
	if tp != nil {
		wg.Go(func() { terr = tp.Shutdown(ctx) })
	}
	if lp != nil {
		wg.Go(func() { lerr = lp.Shutdown(ctx) })
	}
	wg.Wait()
	cancel()
	if terr != nil {
		terr = fmt.Errorf("tracer provider: %w", terr)
	}
	if lerr != nil {
		lerr = fmt.Errorf("logger provider: %w", lerr)
	}
	var merr error
	if mp != nil {
		mctx, mcancel := context.WithTimeout(context.Background(), metricShutdownTimeout)
		defer mcancel()
		if merr = mp.Shutdown(mctx); merr != nil {
			merr = fmt.Errorf("meter provider: %w", merr)
		}
	}
	return errors.Join(terr, lerr, merr)
}

type otelTelemetry struct {
	tracer   trace.Tracer
	logger   log.Logger
	requests metric.Int64Counter
	duration metric.Float64Histogram
	addOpt   []metric.AddOption
	recOpt   []metric.RecordOption
}

// instrumentServer: the usual net/http instrumentation. The handler is
// registered on the mux as "GET /work", so r.Pattern is set and otelhttp
// names the span "GET /work" and sets http.route=/work. /healthz is not
// wrapped, so it is never traced.
func (t *otelTelemetry) instrumentServer(h http.Handler, route string) http.Handler {
	return otelhttp.NewHandler(h, "GET "+route)
}

var peerCache = attribute.String("peer.service", "cache")

func (t *otelTelemetry) startChild(ctx context.Context, i, iters int) (context.Context, func()) {
	var span trace.Span
	if i%2 == 0 {
		ctx, span = t.tracer.Start(ctx, "work.compute",
			trace.WithSpanKind(trace.SpanKindInternal),
			trace.WithAttributes(attribute.Int("work.step.index", i), attribute.Int("work.iters", iters)))
	} else {
		ctx, span = t.tracer.Start(ctx, "work.fetch",
			trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.Int("work.step.index", i), attribute.Int("work.iters", iters), peerCache))
	}
	return ctx, func() { span.End() }
}

func (t *otelTelemetry) requestDone(ctx context.Context, iters, spans int, d time.Duration) {
	var rec log.Record
	rec.SetTimestamp(time.Now())
	rec.SetSeverity(log.SeverityInfo)
	rec.SetSeverityText("INFO")
	rec.SetBody(attribute.StringValue("work done"))
	rec.AddAttributes(attribute.Int("work.iters", iters), attribute.Int("work.spans", spans))
	t.logger.Emit(ctx, rec)

	t.requests.Add(ctx, 1, t.addOpt...)
	t.duration.Record(ctx, d.Seconds(), t.recOpt...)
}
