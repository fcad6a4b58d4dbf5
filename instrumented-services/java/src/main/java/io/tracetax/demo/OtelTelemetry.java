package io.tracetax.demo;

import com.sun.net.httpserver.Filter;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.logs.Logger;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.instrumentation.javahttpserver.JavaHttpServerTelemetry;
import java.util.function.LongSupplier;

/**
 * The handler's telemetry through the OpenTelemetry API (GlobalOpenTelemetry): child spans, the
 * per-request log record, the request counter and duration histogram.
 *
 * <p>In simple/batch the global instance is the SDK built by {@link OtelSetup}; in agent mode it is
 * the Java agent's (the agent bridges the application's API to its own SDK).
 */
final class OtelTelemetry implements Telemetry {

  static final String SCOPE = "io.tracetax.demo";

  private static final AttributeKey<Long> STEP_INDEX = AttributeKey.longKey("work.step.index");
  private static final AttributeKey<Long> WORK_ITERS = AttributeKey.longKey("work.iters");
  private static final AttributeKey<Long> WORK_SPANS = AttributeKey.longKey("work.spans");
  private static final AttributeKey<String> PEER_SERVICE = AttributeKey.stringKey("peer.service");
  private static final Attributes ROUTE = Attributes.of(AttributeKey.stringKey("http.route"), "/work");

  private final Tracer tracer;
  private final Logger logger;
  private final LongCounter requests;
  private final DoubleHistogram duration;
  private final Filter serverFilter;

  /**
   * @param installServerFilter true for simple/batch (the library instrumentation makes the SERVER
   *     span); false under the agent, whose own java-http-server instrumentation makes it.
   */
  OtelTelemetry(boolean installServerFilter) {
    OpenTelemetry otel = GlobalOpenTelemetry.get();
    tracer = otel.getTracer(SCOPE);
    logger = otel.getLogsBridge().get(SCOPE);
    Meter meter = otel.getMeter(SCOPE);
    requests = meter.counterBuilder("tracetax.demo.requests")
        .setUnit("{request}")
        .setDescription("Requests to /work.")
        .build();
    duration = meter.histogramBuilder("tracetax.demo.request.duration")
        .setUnit("s")
        .setDescription("Duration of /work requests, measured in the handler.")
        .build();
    serverFilter = installServerFilter ? JavaHttpServerTelemetry.create(otel).newFilter() : null;
  }

  @Override
  public long child(int index, long iters, LongSupplier work) {
    boolean fetch = (index & 1) == 1;
    var builder = tracer.spanBuilder(fetch ? "work.fetch" : "work.compute")
        .setSpanKind(fetch ? SpanKind.CLIENT : SpanKind.INTERNAL)
        .setAttribute(STEP_INDEX, (long) index)
        .setAttribute(WORK_ITERS, iters);
    if (fetch) {
      builder.setAttribute(PEER_SERVICE, "cache");
    }
    Span span = builder.startSpan();
    try (Scope ignored = span.makeCurrent()) {
      return work.getAsLong();
    } finally {
      span.end();
    }
  }

  @Override
  public void requestDone(long iters, int spans, double seconds, boolean ok) {
    if (ok) {
      logger.logRecordBuilder()
          .setSeverity(Severity.INFO)
          .setSeverityText("INFO")
          .setBody("work done")
          .setAttribute(WORK_ITERS, iters)
          .setAttribute(WORK_SPANS, (long) spans)
          .emit();
    }
    requests.add(1, ROUTE);
    duration.record(seconds, ROUTE);
  }

  @Override
  public Filter serverFilter() {
    return serverFilter;
  }
}
