package io.tracetax.demo;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Configuration read from the environment and validated before anything else happens.
 *
 * <p>Plain Java only: this class must never reference io.opentelemetry types, because it is loaded
 * in mode {@code none} too. The SDK's own parsing would only warn and fall back on bad values, so
 * every variable the service honours is checked here and a bad one stops the process (exit 2).
 */
final class Config {

  /** Thrown for a bad value; the message is the one line printed to stderr. */
  static final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    ConfigException(String variable, String value, String accepted) {
      super(variable + "=" + quote(value) + " is not valid; accepted: " + accepted);
    }

    ConfigException(String message) {
      super(message);
    }

    private static String quote(String v) {
      return "'" + v + "'";
    }
  }

  enum Mode {
    NONE,
    SIMPLE,
    BATCH,
    AGENT;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  enum Protocol {
    GRPC("grpc", "http://localhost:4317"),
    HTTP_PROTOBUF("http/protobuf", "http://localhost:4318");

    final String label;
    final String defaultEndpoint;

    Protocol(String label, String defaultEndpoint) {
      this.label = label;
      this.defaultEndpoint = defaultEndpoint;
    }
  }

  /** OTEL_BSP_* or OTEL_BLRP_* (same four settings, same defaults in the spec). */
  static final class BatchSettings {
    final long scheduleDelayMillis;
    final int maxQueueSize;
    final int maxExportBatchSize;
    final long exportTimeoutMillis;

    BatchSettings(long scheduleDelayMillis, int maxQueueSize, int maxExportBatchSize,
        long exportTimeoutMillis) {
      this.scheduleDelayMillis = scheduleDelayMillis;
      this.maxQueueSize = maxQueueSize;
      this.maxExportBatchSize = maxExportBatchSize;
      this.exportTimeoutMillis = exportTimeoutMillis;
    }
  }

  static final String DEFAULT_SERVICE_NAME = "tracetax-demo-java";

  static final String SAMPLERS =
      "always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, "
          + "parentbased_traceidratio";

  /** TRACETAX_INJECT_BUSY_US is at most 1 s of busy-wait per request. */
  static final long MAX_INJECT_BUSY_US = 1_000_000L;

  /** TRACETAX_INJECT_BACKGROUND_US is at most 1 s per period; the period 1 ms..1 h. */
  static final long MAX_INJECT_BACKGROUND_US = 1_000_000L;
  static final long MAX_INJECT_BACKGROUND_PERIOD_MS = 3_600_000L;
  static final long DEFAULT_INJECT_BACKGROUND_PERIOD_MS = 2_000L;

  final int port;
  final int workerThreads;
  /** Every /work request spins this long on its thread's CPU clock (a known cost; 0: none). */
  final long injectBusyMicros;
  /** A background thread spins this much CPU time every injectBackgroundPeriodMillis (0: none). */
  final long injectBackgroundMicros;
  final long injectBackgroundPeriodMillis;
  final Mode mode;
  final String serviceName;
  final Map<String, String> resourceAttributes;
  final Protocol protocol;
  final String tracesEndpoint;
  final String metricsEndpoint;
  final String logsEndpoint;
  final BatchSettings bsp;
  final BatchSettings blrp;
  final String sampler;
  final double samplerRatio;
  final long metricExportIntervalMillis;
  /**
   * The standard per-signal switches (this service builds its providers by hand, so it honours
   * them itself): a signal is on unless OTEL_SDK_DISABLED=true or OTEL_&lt;SIGNAL&gt;_EXPORTER=none.
   */
  final boolean tracesOn;
  final boolean metricsOn;
  final boolean logsOn;

  private Config(Map<String, String> env) throws ConfigException {
    port = intIn(env, "PORT", 8080, 1, 65535, "an integer port 1..65535");
    int cpus = Runtime.getRuntime().availableProcessors();
    workerThreads = intIn(env, "TRACETAX_HTTP_WORKERS", Math.max(4, 2 * cpus), 1, 1024,
        "an integer 1..1024");
    injectBusyMicros = longIn(env, "TRACETAX_INJECT_BUSY_US", 0, 0, MAX_INJECT_BUSY_US,
        "an integer 0..1000000 (microseconds of busy-wait per /work request; unset: 0)");
    injectBackgroundMicros = longIn(env, "TRACETAX_INJECT_BACKGROUND_US", 0, 0,
        MAX_INJECT_BACKGROUND_US,
        "an integer 0..1000000 (microseconds of background busy-wait per period; unset: 0)");
    injectBackgroundPeriodMillis = longIn(env, "TRACETAX_INJECT_BACKGROUND_PERIOD_MS",
        DEFAULT_INJECT_BACKGROUND_PERIOD_MS, 1, MAX_INJECT_BACKGROUND_PERIOD_MS,
        "an integer 1..3600000 (milliseconds between background bursts; unset: 2000)");

    String m = get(env, "TRACETAX_PROCESSOR");
    if (m == null) {
      mode = Mode.BATCH;
    } else {
      switch (m) {
        case "none": mode = Mode.NONE; break;
        case "simple": mode = Mode.SIMPLE; break;
        case "batch": mode = Mode.BATCH; break;
        case "agent": mode = Mode.AGENT; break;
        default: throw new ConfigException("TRACETAX_PROCESSOR", m, "none, simple, batch, agent");
      }
    }

    String svc = get(env, "OTEL_SERVICE_NAME");
    resourceAttributes = parseResourceAttributes(get(env, "OTEL_RESOURCE_ATTRIBUTES"));
    if (svc != null) {
      serviceName = svc;
    } else if (resourceAttributes.containsKey("service.name")) {
      serviceName = resourceAttributes.get("service.name");
    } else {
      serviceName = DEFAULT_SERVICE_NAME;
    }

    String p = get(env, "OTEL_EXPORTER_OTLP_PROTOCOL");
    if (p == null || p.equals("http/protobuf")) {
      protocol = Protocol.HTTP_PROTOBUF;
    } else if (p.equals("grpc")) {
      protocol = Protocol.GRPC;
    } else {
      throw new ConfigException("OTEL_EXPORTER_OTLP_PROTOCOL", p, "grpc, http/protobuf");
    }

    // Base endpoint: for http/protobuf the signal path (/v1/traces ...) is appended; the
    // signal-specific variables are used as they are (OTLP exporter spec).
    String base = get(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
    if (base != null) {
      checkUrl("OTEL_EXPORTER_OTLP_ENDPOINT", base);
    } else {
      base = protocol.defaultEndpoint;
    }
    tracesEndpoint = signalEndpoint(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", base, "/v1/traces");
    metricsEndpoint =
        signalEndpoint(env, "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", base, "/v1/metrics");
    logsEndpoint = signalEndpoint(env, "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", base, "/v1/logs");

    bsp = batch(env, "OTEL_BSP_");
    blrp = batch(env, "OTEL_BLRP_");

    String s = get(env, "OTEL_TRACES_SAMPLER");
    sampler = s == null ? "parentbased_always_on" : s;
    switch (sampler) {
      case "always_on":
      case "always_off":
      case "parentbased_always_on":
      case "parentbased_always_off":
        samplerRatio = 1.0; // OTEL_TRACES_SAMPLER_ARG is ignored for these (spec)
        break;
      case "traceidratio":
      case "parentbased_traceidratio":
        samplerRatio = ratio(get(env, "OTEL_TRACES_SAMPLER_ARG"));
        break;
      default:
        throw new ConfigException("OTEL_TRACES_SAMPLER", sampler, SAMPLERS);
    }

    metricExportIntervalMillis = longIn(env, "OTEL_METRIC_EXPORT_INTERVAL", 60_000, 1,
        Long.MAX_VALUE, "a positive integer number of milliseconds");

    boolean disabled = oneOf(env, "OTEL_SDK_DISABLED", "false", "true, false").equals("true");
    tracesOn = !disabled && oneOf(env, "OTEL_TRACES_EXPORTER", "otlp", "otlp, none").equals("otlp");
    metricsOn = !disabled && oneOf(env, "OTEL_METRICS_EXPORTER", "otlp", "otlp, none").equals("otlp");
    logsOn = !disabled && oneOf(env, "OTEL_LOGS_EXPORTER", "otlp", "otlp, none").equals("otlp");
  }

  /** A case-insensitive value among `accepted` (comma-separated), or `fallback` when unset. */
  private static String oneOf(Map<String, String> env, String name, String fallback, String accepted)
      throws ConfigException {
    String v = get(env, name);
    if (v == null) {
      return fallback;
    }
    String lower = v.toLowerCase(Locale.ROOT);
    for (String option : accepted.split(", ")) {
      if (option.equals(lower)) {
        return lower;
      }
    }
    throw new ConfigException(name, v, accepted);
  }

  static Config fromEnvironment() throws ConfigException {
    return new Config(System.getenv());
  }

  // ---- helpers ------------------------------------------------------------------------------

  /** Unset and empty are the same thing (spec: empty value == unset). */
  private static String get(Map<String, String> env, String name) {
    String v = env.get(name);
    if (v == null) {
      return null;
    }
    v = v.trim();
    return v.isEmpty() ? null : v;
  }

  private String signalEndpoint(Map<String, String> env, String var, String base, String path)
      throws ConfigException {
    String v = get(env, var);
    if (v != null) {
      checkUrl(var, v);
      return v;
    }
    if (protocol == Protocol.GRPC) {
      return base;
    }
    return (base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + path;
  }

  private static void checkUrl(String var, String v) throws ConfigException {
    String accepted = "an http:// or https:// URL with a host, e.g. http://127.0.0.1:4318";
    try {
      URI u = new URI(v);
      String scheme = u.getScheme();
      if (scheme == null || !(scheme.equals("http") || scheme.equals("https"))
          || u.getHost() == null) {
        throw new ConfigException(var, v, accepted);
      }
    } catch (java.net.URISyntaxException e) {
      throw new ConfigException(var, v, accepted);
    }
  }

  private static BatchSettings batch(Map<String, String> env, String prefix)
      throws ConfigException {
    long delay = longIn(env, prefix + "SCHEDULE_DELAY", prefix.equals("OTEL_BSP_") ? 5000 : 1000,
        0, Long.MAX_VALUE, "a non-negative integer number of milliseconds");
    int queue = intIn(env, prefix + "MAX_QUEUE_SIZE", 2048, 1, Integer.MAX_VALUE,
        "a positive integer");
    int batch = intIn(env, prefix + "MAX_EXPORT_BATCH_SIZE", 512, 1, Integer.MAX_VALUE,
        "a positive integer");
    long timeout = longIn(env, prefix + "EXPORT_TIMEOUT", 30_000, 0, Long.MAX_VALUE,
        "a non-negative integer number of milliseconds (0 = no limit)");
    // MAX_EXPORT_BATCH_SIZE > MAX_QUEUE_SIZE is accepted: the SDK clamps it to the queue size
    // (with a warning), which is also what the spec asks for.
    return new BatchSettings(delay, queue, batch, timeout);
  }

  private static double ratio(String v) throws ConfigException {
    if (v == null) {
      return 1.0;
    }
    String accepted = "a number in [0, 1] for OTEL_TRACES_SAMPLER=traceidratio/"
        + "parentbased_traceidratio";
    double d;
    try {
      d = Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new ConfigException("OTEL_TRACES_SAMPLER_ARG", v, accepted);
    }
    if (!(d >= 0.0 && d <= 1.0)) {
      throw new ConfigException("OTEL_TRACES_SAMPLER_ARG", v, accepted);
    }
    return d;
  }

  private static int intIn(Map<String, String> env, String var, int def, int min, int max,
      String accepted) throws ConfigException {
    return (int) longIn(env, var, def, min, max, accepted);
  }

  private static long longIn(Map<String, String> env, String var, long def, long min, long max,
      String accepted) throws ConfigException {
    String v = get(env, var);
    if (v == null) {
      return def;
    }
    long n;
    try {
      n = Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new ConfigException(var, v, accepted);
    }
    if (n < min || n > max) {
      throw new ConfigException(var, v, accepted);
    }
    return n;
  }

  /** W3C Baggage-like list: key1=value1,key2=value2 with percent-encoded values (spec). */
  private static Map<String, String> parseResourceAttributes(String v) throws ConfigException {
    Map<String, String> out = new LinkedHashMap<>();
    if (v == null) {
      return out;
    }
    String accepted = "a comma-separated list of key=value pairs (values percent-encoded)";
    for (String part : v.split(",", -1)) {
      String item = part.trim();
      if (item.isEmpty()) {
        continue;
      }
      int eq = item.indexOf('=');
      if (eq <= 0) {
        throw new ConfigException("OTEL_RESOURCE_ATTRIBUTES", v, accepted);
      }
      String key = item.substring(0, eq).trim();
      String raw = item.substring(eq + 1).trim();
      try {
        // URLDecoder would turn '+' into ' '; protect it since the spec uses percent-encoding only.
        out.put(key, URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        throw new ConfigException("OTEL_RESOURCE_ATTRIBUTES", v, accepted);
      }
    }
    return out;
  }
}
