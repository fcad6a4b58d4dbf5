'use strict';
// OpenTelemetry setup: traces, metrics and logs over OTLP (grpc or http/protobuf).
//
// Required by the entry point only in `simple` and `batch` mode, and before `http` is required:
// @opentelemetry/instrumentation-http patches the http module when it is loaded after the
// instrumentation is enabled. setupOtelSdk builds the three SDK providers, installs them as the
// global API providers, enables the http instrumentation (the SERVER span) and returns one
// shutdown function. OTelTelemetry is what the handler calls for its child spans, log and metrics.

const { diag, DiagConsoleLogger, DiagLogLevel, trace, metrics, SpanKind } = require('@opentelemetry/api');
const { logs, SeverityNumber } = require('@opentelemetry/api-logs');
const { registerInstrumentations } = require('@opentelemetry/instrumentation');
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');
const { defaultResource, detectResources, envDetector, resourceFromAttributes } = require('@opentelemetry/resources');
const { BatchLogRecordProcessor, LoggerProvider, SimpleLogRecordProcessor } = require('@opentelemetry/sdk-logs');
const { MeterProvider, PeriodicExportingMetricReader } = require('@opentelemetry/sdk-metrics');
const { BatchSpanProcessor, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace');
const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');

const { DEFAULT_SERVICE_NAME } = require('./config');

const SCOPE = 'tracetax-demo-node';

// SDK warnings and errors (failed exports, "Dropped N spans because maxQueueSize reached") on stderr.
diag.setLogger(new DiagConsoleLogger(), { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });

// Exporters: endpoints, headers and timeouts come from OTEL_EXPORTER_OTLP_* (read by the exporters).
// The span and log exporters report otel.sdk.exporter.* metrics through selfObsMeterProvider.
function spanExporter(protocol, selfObsMeterProvider) {
  const pkg = protocol === 'grpc' ? '@opentelemetry/exporter-trace-otlp-grpc' : '@opentelemetry/exporter-trace-otlp-proto';
  return new (require(pkg).OTLPTraceExporter)({ selfObsMeterProvider });
}

function logExporter(protocol, selfObsMeterProvider) {
  const pkg = protocol === 'grpc' ? '@opentelemetry/exporter-logs-otlp-grpc' : '@opentelemetry/exporter-logs-otlp-proto';
  return new (require(pkg).OTLPLogExporter)({ selfObsMeterProvider });
}

function metricExporter(protocol) {
  const pkg = protocol === 'grpc' ? '@opentelemetry/exporter-metrics-otlp-grpc' : '@opentelemetry/exporter-metrics-otlp-proto';
  return new (require(pkg).OTLPMetricExporter)();
}

function resource(worker) {
  // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME (envDetector) win over the project default.
  const res = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME }))
    .merge(detectResources({ detectors: [envDetector] }));
  if (worker === undefined) return res;
  // A cluster worker (TRACETAX_WORKERS > 1): every worker exports its own cumulative counters, so
  // each gets its own service.instance.id, added to the environment's attributes (tracetax.run.id,
  // tracetax.config stay) and winning over any given there; with one resource for all of them the
  // Collector and the metrics store would mix the workers' series.
  const id = `${res.attributes['service.name']}-worker-${worker.index}-${process.pid}`;
  return res.merge(resourceFromAttributes({ 'service.instance.id': id }));
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} shutdown did not finish in time (export stuck?)`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// Build and install the providers for `simple` or `batch`; return the shutdown function.
// `worker` ({ index }) only in a cluster worker: its resource gets a service.instance.id of its own.
function setupOtelSdk(cfg, worker) {
  const res = resource(worker);

  const simple = cfg.processor === 'simple';
  if (!simple && cfg.processor !== 'batch') throw new Error(`setupOtelSdk: unsupported processor ${cfg.processor}`);
  // Only the signals that are on get a provider (cfg.signals); the others keep the API's no-op.
  const on = signal => cfg.signals.has(signal);

  // Metrics first, so the traces and logs pipelines can report their own metrics through it
  // (selfObsMeterProvider: otel.sdk.processor.span.processed{error.type=queue_full}, ...).
  let meterProvider;
  if (on('METRICS')) {
    meterProvider = new MeterProvider({
      resource: res,
      sdkMetricsEnabled: true,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: metricExporter(cfg.protocols.METRICS),
          exportIntervalMillis: cfg.metricExportIntervalMillis,
          exportTimeoutMillis: cfg.metricExportTimeoutMillis,
        }),
      ],
    });
    metrics.setGlobalMeterProvider(meterProvider);
  }

  let tracerProvider;
  if (on('TRACES')) {
    const exporter = spanExporter(cfg.protocols.TRACES, meterProvider);
    const spanProcessor = simple
      ? new SimpleSpanProcessor({ exporter, selfObsMeterProvider: meterProvider })
      : new BatchSpanProcessor({ exporter, ...cfg.bsp, selfObsMeterProvider: meterProvider });
    // NodeTracerProvider reads OTEL_TRACES_SAMPLER / _ARG (validated in config.js); register()
    // installs it globally with the AsyncLocalStorage context manager and the W3C propagators.
    tracerProvider = new NodeTracerProvider({ resource: res, spanProcessors: [spanProcessor], meterProvider });
    tracerProvider.register();
  }

  let loggerProvider;
  if (on('LOGS')) {
    const exporter = logExporter(cfg.protocols.LOGS, meterProvider);
    const logProcessor = simple
      ? new SimpleLogRecordProcessor({ exporter, selfObsMeterProvider: meterProvider })
      : new BatchLogRecordProcessor({ exporter, ...cfg.blrp, selfObsMeterProvider: meterProvider });
    loggerProvider = new LoggerProvider({ resource: res, processors: [logProcessor], meterProvider });
    logs.setGlobalLoggerProvider(loggerProvider);
  }

  registerInstrumentations({
    tracerProvider,
    meterProvider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: req => req.url === '/healthz' || req.url.startsWith('/healthz?'),
        // The exporters' own requests are not traced (and the service makes no other calls).
        disableOutgoingRequestInstrumentation: true,
        // Plain node:http has no router: name the SERVER span like the other languages do.
        requestHook: (span, req) => {
          const url = req.url || '';
          if (url === '/work' || url.startsWith('/work?')) {
            span.setAttribute('http.route', '/work');
            span.updateName(`${req.method} /work`);
          }
        },
      }),
    ],
  });

  // Flush and shut down traces and logs (in parallel, at most 2/3 of the budget), then metrics
  // (the rest), so the processors' own counters make it into the last metric export. Every
  // failure is collected and thrown together as one AggregateError.
  return async function shutdown(timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    const errors = [];
    const first = await Promise.allSettled(
      [
        [tracerProvider, 'traces'],
        [loggerProvider, 'logs'],
      ]
        .filter(([provider]) => provider !== undefined)
        .map(([provider, name]) => withTimeout(provider.shutdown(), (timeoutMs * 2) / 3, name)),
    );
    for (const r of first) if (r.status === 'rejected') errors.push(r.reason);
    const remaining = Math.max(0, deadline - Date.now());
    try {
      if (meterProvider) await withTimeout(meterProvider.shutdown({ timeoutMillis: remaining }), remaining, 'metrics');
    } catch (err) {
      errors.push(err);
    }
    if (errors.length > 0) throw new AggregateError(errors, 'OpenTelemetry shutdown');
  };
}

// The handler's telemetry calls on the global OTel API providers.
class OTelTelemetry {
  constructor() {
    this.tracer = trace.getTracer(SCOPE);
    this.logger = logs.getLogger(SCOPE);
    const meter = metrics.getMeter(SCOPE);
    this.requests = meter.createCounter('tracetax.demo.requests', {
      unit: '{request}',
      description: 'GET /work requests served',
    });
    this.duration = meter.createHistogram('tracetax.demo.request.duration', {
      unit: 's',
      description: 'Time spent in the /work handler',
    });
    this.metricAttrs = { 'http.route': '/work' };
  }

  // A child of the active (SERVER) span: even index work.compute INTERNAL, odd work.fetch CLIENT.
  childSpan(index, iters, fn) {
    const even = index % 2 === 0;
    const attributes = { 'work.step.index': index, 'work.iters': iters };
    if (!even) attributes['peer.service'] = 'cache';
    return this.tracer.startActiveSpan(
      even ? 'work.compute' : 'work.fetch',
      { kind: even ? SpanKind.INTERNAL : SpanKind.CLIENT, attributes },
      span => {
        try {
          return fn();
        } finally {
          span.end();
        }
      },
    );
  }

  requestDone(iters, spans, durationS) {
    this.logger.emit({
      body: 'work done',
      severityNumber: SeverityNumber.INFO,
      severityText: 'INFO',
      attributes: { 'work.iters': iters, 'work.spans': spans },
    });
    this.requests.add(1, this.metricAttrs);
    this.duration.record(durationS, this.metricAttrs);
  }
}

module.exports = { setupOtelSdk, OTelTelemetry };
