package io.tracetax.demo;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.logs.LoggerProvider;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.exporter.otlp.http.logs.OtlpHttpLogRecordExporter;
import io.opentelemetry.exporter.otlp.http.metrics.OtlpHttpMetricExporter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.exporter.otlp.logs.OtlpGrpcLogRecordExporter;
import io.opentelemetry.exporter.otlp.metrics.OtlpGrpcMetricExporter;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.common.InternalTelemetryVersion;
import io.opentelemetry.sdk.logs.LogRecordProcessor;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.sdk.logs.export.BatchLogRecordProcessor;
import io.opentelemetry.sdk.logs.export.LogRecordExporter;
import io.opentelemetry.sdk.logs.export.SimpleLogRecordProcessor;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.export.MetricExporter;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * OpenTelemetry SDK setup for modes simple and batch (agent mode never calls this: the agent owns
 * the SDK). Like the Go "dice" example, it builds the providers, registers them as the global
 * OpenTelemetry and returns one shutdown function.
 *
 * <p>Everything is configured from the already validated {@link Config}: resource, sampler,
 * OTLP protocol/endpoints, OTEL_BSP_* / OTEL_BLRP_*, OTEL_METRIC_EXPORT_INTERVAL.
 */
final class OtelSetup {

  private OtelSetup() {}

  static Main.Shutdown setup(Config cfg) {
    Resource resource = resource(cfg);
    boolean grpc = cfg.protocol == Config.Protocol.GRPC;

    // Metrics first: the span/log processors and exporters report their own metrics (dropped
    // spans included) through this same MeterProvider. A signal that is off (cfg.tracesOn ...)
    // gets no provider: the API's no-op stands in for it, so it costs no SDK work.
    SdkMeterProvider meterProvider = null;
    if (cfg.metricsOn) {
      MetricExporter metricExporter = grpc
          ? OtlpGrpcMetricExporter.builder().setEndpoint(cfg.metricsEndpoint).build()
          : OtlpHttpMetricExporter.builder().setEndpoint(cfg.metricsEndpoint).build();
      meterProvider = SdkMeterProvider.builder()
          .setResource(resource)
          .registerMetricReader(PeriodicMetricReader.builder(metricExporter)
              .setInterval(Duration.ofMillis(cfg.metricExportIntervalMillis))
              .build())
          .build();
    }
    MeterProvider meters = meterProvider != null ? meterProvider : MeterProvider.noop();
    Supplier<MeterProvider> self = () -> meters;

    SdkTracerProvider tracerProvider = cfg.tracesOn
        ? SdkTracerProvider.builder()
            .setResource(resource)
            .setSampler(sampler(cfg))
            .addSpanProcessor(spanProcessor(cfg, grpc, self))
            .build()
        : null;
    SdkLoggerProvider loggerProvider = cfg.logsOn
        ? SdkLoggerProvider.builder()
            .setResource(resource)
            .addLogRecordProcessor(logProcessor(cfg, grpc, self))
            .build()
        : null;

    TracerProvider tracers = tracerProvider != null ? tracerProvider : TracerProvider.noop();
    LoggerProvider loggers = loggerProvider != null ? loggerProvider : LoggerProvider.noop();
    GlobalOpenTelemetry.set(new OpenTelemetry() {
      @Override
      public TracerProvider getTracerProvider() {
        return tracers;
      }

      @Override
      public MeterProvider getMeterProvider() {
        return meters;
      }

      @Override
      public LoggerProvider getLogsBridge() {
        return loggers;
      }

      @Override
      public ContextPropagators getPropagators() {
        return ContextPropagators.noop();
      }
    });

    // One shutdown function. Traces and logs are flushed first, in parallel (their processors
    // still record self-metrics while flushing), then metrics, so the last metric export carries
    // the final dropped/processed counts. Traces+logs get 60% of the budget, metrics the rest, so
    // an unreachable trace endpoint cannot eat the time the final metric export needs. Failures
    // are joined into one list that the caller reports.
    SdkTracerProvider tp = tracerProvider;
    SdkLoggerProvider lp = loggerProvider;
    SdkMeterProvider mp = meterProvider;
    return timeoutMillis -> {
      long start = System.nanoTime();
      long tracesDeadline = start + TimeUnit.MILLISECONDS.toNanos(timeoutMillis * 6 / 10);
      long metricsDeadline = start + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
      List<String> errors = new ArrayList<>();
      CompletableResultCode traces = tp != null ? tp.shutdown() : CompletableResultCode.ofSuccess();
      CompletableResultCode logs = lp != null ? lp.shutdown() : CompletableResultCode.ofSuccess();
      await("tracer provider", traces, tracesDeadline, errors);
      await("logger provider", logs, tracesDeadline, errors);
      if (mp != null) {
        flushMetrics(mp, metricsDeadline, errors);
        await("meter provider", mp.shutdown(), metricsDeadline, errors);
      }
      return errors;
    };
  }

  /**
   * Exports the metrics once more before shutdown, waiting out a periodic export in flight.
   * SDK 1.58's PeriodicMetricReader.shutdown skips its final export while a periodic one is in
   * flight and then cancels that one by shutting the exporter down (opentelemetry-java#8299):
   * a service stopped during its first export lost every metric. forceFlush fails at once while
   * the exporter is busy, so it is retried until it runs and completes, or the deadline passes.
   */
  private static void flushMetrics(SdkMeterProvider mp, long deadline, List<String> errors) {
    while (System.nanoTime() < deadline) {
      CompletableResultCode flush = mp.forceFlush();
      flush.join(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (flush.isSuccess()) {
        return;
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    errors.add("meter provider: the final metric flush did not complete");
  }

  private static SpanProcessor spanProcessor(Config cfg, boolean grpc,
      Supplier<MeterProvider> self) {
    SpanExporter spanExporter = grpc
        ? OtlpGrpcSpanExporter.builder().setEndpoint(cfg.tracesEndpoint)
            .setMeterProvider(self).setInternalTelemetryVersion(InternalTelemetryVersion.LATEST)
            .build()
        : OtlpHttpSpanExporter.builder().setEndpoint(cfg.tracesEndpoint)
            .setMeterProvider(self).setInternalTelemetryVersion(InternalTelemetryVersion.LATEST)
            .build();
    if (cfg.mode == Config.Mode.SIMPLE) {
      // SimpleSpanProcessor (1.58) always records the semconv metrics when given a MeterProvider.
      return SimpleSpanProcessor.builder(spanExporter).setMeterProvider(self).build();
    }
    return BatchSpanProcessor.builder(spanExporter)
        .setScheduleDelay(cfg.bsp.scheduleDelayMillis, TimeUnit.MILLISECONDS)
        .setMaxQueueSize(cfg.bsp.maxQueueSize)
        .setMaxExportBatchSize(cfg.bsp.maxExportBatchSize)
        .setExporterTimeout(cfg.bsp.exportTimeoutMillis, TimeUnit.MILLISECONDS)
        .setMeterProvider(self)
        .setInternalTelemetryVersion(InternalTelemetryVersion.LATEST)
        .build();
  }

  private static LogRecordProcessor logProcessor(Config cfg, boolean grpc,
      Supplier<MeterProvider> self) {
    LogRecordExporter logExporter = grpc
        ? OtlpGrpcLogRecordExporter.builder().setEndpoint(cfg.logsEndpoint)
            .setMeterProvider(self).setInternalTelemetryVersion(InternalTelemetryVersion.LATEST)
            .build()
        : OtlpHttpLogRecordExporter.builder().setEndpoint(cfg.logsEndpoint)
            .setMeterProvider(self).setInternalTelemetryVersion(InternalTelemetryVersion.LATEST)
            .build();
    if (cfg.mode == Config.Mode.SIMPLE) {
      return SimpleLogRecordProcessor.builder(logExporter).setMeterProvider(self).build();
    }
    return BatchLogRecordProcessor.builder(logExporter)
        .setScheduleDelay(cfg.blrp.scheduleDelayMillis, TimeUnit.MILLISECONDS)
        .setMaxQueueSize(cfg.blrp.maxQueueSize)
        .setMaxExportBatchSize(cfg.blrp.maxExportBatchSize)
        .setExporterTimeout(cfg.blrp.exportTimeoutMillis, TimeUnit.MILLISECONDS)
        .setMeterProvider(self)
        .setInternalTelemetryVersion(InternalTelemetryVersion.LATEST)
        .build();
  }

  private static void await(String what, CompletableResultCode result, long deadline,
      List<String> errors) {
    long left = Math.max(0, deadline - System.nanoTime());
    result.join(left, TimeUnit.NANOSECONDS);
    if (!result.isDone()) {
      errors.add(what + ": shutdown timed out");
    } else if (!result.isSuccess()) {
      Throwable t = result.getFailureThrowable();
      errors.add(what + ": shutdown failed" + (t == null ? "" : " (" + t + ")"));
    }
  }

  private static Resource resource(Config cfg) {
    AttributesBuilder attrs = Attributes.builder();
    for (Map.Entry<String, String> e : cfg.resourceAttributes.entrySet()) {
      attrs.put(e.getKey(), e.getValue());
    }
    attrs.put(AttributeKey.stringKey("service.name"), cfg.serviceName);
    return Resource.getDefault().merge(Resource.create(attrs.build()));
  }

  private static Sampler sampler(Config cfg) {
    switch (cfg.sampler) {
      case "always_on": return Sampler.alwaysOn();
      case "always_off": return Sampler.alwaysOff();
      case "traceidratio": return Sampler.traceIdRatioBased(cfg.samplerRatio);
      case "parentbased_always_on": return Sampler.parentBased(Sampler.alwaysOn());
      case "parentbased_always_off": return Sampler.parentBased(Sampler.alwaysOff());
      case "parentbased_traceidratio":
        return Sampler.parentBased(Sampler.traceIdRatioBased(cfg.samplerRatio));
      default: throw new IllegalStateException("validated in Config: " + cfg.sampler);
    }
  }
}
