package io.tracetax.demo;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /work?iters=N&spans=K}: deterministic CPU work proportional to N, K spans per request.
 *
 * <p>Span 1 is the SERVER span made by the library filter (or by the agent); the K-1 children are
 * made here through {@link Telemetry#child}, sequentially, with the work split evenly over them.
 * With K == 1 all the work runs directly in the SERVER span.
 */
final class WorkHandler implements HttpHandler {

  static final long MAX_ITERS = 10_000_000L;
  static final int MAX_SPANS = 1000;

  private final Telemetry telemetry;
  private final long busyNanos;

  WorkHandler(Telemetry telemetry, long injectBusyMicros) {
    this.telemetry = telemetry;
    this.busyNanos = injectBusyMicros * 1000L;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    long start = System.nanoTime();
    boolean ok = false;
    long iters = 1000;
    int spans = 1;
    try {
      if (!"GET".equals(exchange.getRequestMethod())) {
        send(exchange, 405, "{\"error\":\"method not allowed: use GET\"}");
        return;
      }
      String query = exchange.getRequestURI().getRawQuery();
      String itersRaw = param(query, "iters");
      String spansRaw = param(query, "spans");
      if (itersRaw != null) {
        iters = parse(itersRaw, 0, MAX_ITERS);
        if (iters < 0) {
          send(exchange, 400, "{\"error\":\"iters must be an integer in [0, " + MAX_ITERS + "]\"}");
          return;
        }
      }
      if (spansRaw != null) {
        spans = (int) parse(spansRaw, 1, MAX_SPANS);
        if (spans < 0) {
          send(exchange, 400, "{\"error\":\"spans must be an integer in [1, " + MAX_SPANS + "]\"}");
          return;
        }
      }

      busyWait(busyNanos);
      long sum = run(iters, spans);
      ok = true;
      send(exchange, 200,
          "{\"iters\":" + iters + ",\"spans\":" + spans + ",\"sum\":" + sum + "}");
    } finally {
      telemetry.requestDone(iters, spans, (System.nanoTime() - start) / 1e9, ok);
      exchange.close();
    }
  }

  private long run(long iters, int spans) {
    // The small structure the work reads from, allocated per request.
    int[] arr = new int[64];
    for (int j = 0; j < arr.length; j++) {
      arr[j] = j;
    }
    int children = spans - 1;
    if (children == 0) {
      return compute(arr, 0, iters);
    }
    long sum = 0;
    long chunk = iters / children;
    long rest = iters % children;
    long from = 0;
    for (int c = 0; c < children; c++) {
      long n = chunk + (c < rest ? 1 : 0);
      final long lo = from;
      final long hi = from + n;
      sum += telemetry.child(c, n, () -> compute(arr, lo, hi));
      from = hi;
    }
    return sum;
  }

  /**
   * Spins until the calling thread has run {@code nanos} of CPU time (its own CPU clock):
   * TRACETAX_INJECT_BUSY_US, a known cost of exactly that CPU time however often the spin is
   * preempted (on the wall clock a preempted spin would end having used less). A request's latency
   * grows by at least that: by that alone on an idle core. No sleep.
   */
  static void busyWait(long nanos) {
    if (nanos <= 0) {
      return;
    }
    ThreadMXBean threads = CpuClock.THREADS;
    long deadline = threads.getCurrentThreadCpuTime() + nanos;
    while (threads.getCurrentThreadCpuTime() < deadline) {
      // spin: the clock read is the work
    }
  }

  /**
   * The JVM's thread CPU clock, loaded on the first spin only (a holder class): without an injected
   * cost, no configuration loads the JVM's management classes for it.
   */
  private static final class CpuClock {
    static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  }

  /** acc += (i ^ arr[i % 64]) for i in [from, to): the result depends on N only, not on K. */
  static long compute(int[] arr, long from, long to) {
    long acc = 0;
    for (long i = from; i < to; i++) {
      acc += i ^ arr[(int) (i % 64)];
    }
    return acc;
  }

  /** Returns the value, or -1 when it is not an integer within [min, max]. */
  private static long parse(String raw, long min, long max) {
    try {
      long v = Long.parseLong(raw);
      return v < min || v > max ? -1 : v;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** First value of {@code name} in a raw query string (values here are plain integers). */
  static String param(String query, String name) {
    if (query == null) {
      return null;
    }
    int i = 0;
    while (i <= query.length()) {
      int amp = query.indexOf('&', i);
      if (amp < 0) {
        amp = query.length();
      }
      int eq = query.indexOf('=', i);
      if (eq > i && eq < amp && query.regionMatches(i, name, 0, name.length())
          && eq - i == name.length()) {
        return query.substring(eq + 1, amp);
      }
      if (eq < 0 || eq >= amp) {
        if (amp - i == name.length() && query.regionMatches(i, name, 0, name.length())) {
          return ""; // "?iters" with no value: present but not an integer
        }
      }
      i = amp + 1;
    }
    return null;
  }

  static void send(HttpExchange exchange, int status, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }
}
