package io.tracetax.demo;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpServer;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import sun.misc.Signal;

/**
 * Entry point: validate the environment, set telemetry up for the selected mode, serve /work and
 * /healthz on the JDK HttpServer, and shut down gracefully on SIGTERM/SIGINT.
 *
 * <p>This class never references io.opentelemetry types; {@link OtelSetup} and
 * {@link OtelTelemetry} are only reached (and therefore only loaded by the JVM) when the mode is
 * simple, batch or agent.
 */
public final class Main {

  /** The one shutdown function returned by the OTel setup; returns the joined errors. */
  @FunctionalInterface
  interface Shutdown {
    List<String> shutdown(long timeoutMillis);
  }

  /** Budget for the whole graceful shutdown (the contract asks for ~10 s at most). */
  private static final int HTTP_DRAIN_SECONDS = 2;
  private static final long OTEL_SHUTDOWN_MILLIS = 7_000;

  private Main() {}

  public static void main(String[] args) throws Exception {
    Config cfg;
    try {
      cfg = Config.fromEnvironment();
      checkAgent(cfg.mode);
    } catch (Config.ConfigException e) {
      System.err.println("tracetax-demo-java: " + e.getMessage());
      System.exit(2);
      return;
    }

    Telemetry telemetry;
    Shutdown otelShutdown;
    switch (cfg.mode) {
      case NONE:
        telemetry = Telemetry.NONE;
        otelShutdown = timeout -> List.of();
        break;
      case AGENT:
        // The agent built the SDK from the same OTEL_* variables before main() ran, and it
        // flushes it from its own shutdown hook. Its java-http-server instrumentation makes the
        // SERVER span, so no filter is installed here.
        telemetry = new OtelTelemetry(false);
        otelShutdown = timeout -> List.of();
        break;
      default:
        otelShutdown = OtelSetup.setup(cfg);
        telemetry = new OtelTelemetry(true);
        break;
    }

    ExecutorService workers = Executors.newFixedThreadPool(cfg.workerThreads,
        named("http-worker-"));
    // Every exchange (reading the request, filters, handler, response) runs as one task on the
    // worker pool; counting those tasks gives the number of requests in flight.
    AtomicInteger inFlight = new AtomicInteger();
    Executor counting = task -> {
      inFlight.incrementAndGet();
      try {
        workers.execute(() -> {
          try {
            task.run();
          } finally {
            inFlight.decrementAndGet();
          }
        });
      } catch (RejectedExecutionException e) {
        inFlight.decrementAndGet();
        throw e;
      }
    };
    HttpServer server = HttpServer.create(new InetSocketAddress(cfg.port), 1024);
    server.setExecutor(counting);
    HttpContext work =
        server.createContext("/work", new WorkHandler(telemetry, cfg.injectBusyMicros));
    Filter serverSpan = telemetry.serverFilter();
    if (serverSpan != null) {
      work.getFilters().add(0, serverSpan); // /work only: /healthz is never traced
    }
    server.createContext("/healthz", new HealthHandler(cfg.mode.label()));

    CountDownLatch stop = new CountDownLatch(1);
    Signal.handle(new Signal("TERM"), sig -> stop.countDown());
    Signal.handle(new Signal("INT"), sig -> stop.countDown());

    server.start();
    BackgroundBurn.start(cfg.injectBackgroundMicros, cfg.injectBackgroundPeriodMillis);
    System.err.println("tracetax-demo-java: listening on :" + cfg.port + " mode="
        + cfg.mode.label() + " workers=" + cfg.workerThreads + " inject_busy_us="
        + cfg.injectBusyMicros + " inject_background_us=" + cfg.injectBackgroundMicros
        + " every " + cfg.injectBackgroundPeriodMillis + " ms");

    stop.await();
    long t0 = System.nanoTime();
    System.err.println("tracetax-demo-java: shutting down");
    // Stop accepting and let in-flight exchanges finish, bounded by HTTP_DRAIN_SECONDS.
    // HttpServer.stop(n) closes the listening socket at once but (JDK 17) then sleeps the full n
    // seconds when nothing is in flight, so it runs on its own thread and we only wait for our
    // in-flight count to reach zero.
    Thread stopper = new Thread(() -> server.stop(HTTP_DRAIN_SECONDS), "http-stop");
    stopper.setDaemon(true);
    stopper.start();
    long drainDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HTTP_DRAIN_SECONDS);
    while (inFlight.get() > 0 && System.nanoTime() < drainDeadline) {
      Thread.sleep(5);
    }
    if (inFlight.get() > 0) {
      System.err.println("tracetax-demo-java: " + inFlight.get()
          + " request(s) still in flight after " + HTTP_DRAIN_SECONDS + " s");
    }
    workers.shutdown();
    List<String> errors = otelShutdown.shutdown(OTEL_SHUTDOWN_MILLIS);
    if (!errors.isEmpty()) {
      System.err.println("tracetax-demo-java: telemetry shutdown: " + String.join("; ", errors));
    }
    System.err.printf("tracetax-demo-java: stopped in %.2f s%n", (System.nanoTime() - t0) / 1e9);
    System.exit(0);
  }

  /** agent mode needs the OpenTelemetry Java agent; the other modes must run without it. */
  private static void checkAgent(Config.Mode mode) throws Config.ConfigException {
    boolean agent = false;
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("-javaagent:") && arg.contains("opentelemetry-javaagent")) {
        agent = true;
      }
    }
    if (mode == Config.Mode.AGENT && !agent) {
      throw new Config.ConfigException("TRACETAX_PROCESSOR=agent needs the JVM started with "
          + "-javaagent:target/agent/opentelemetry-javaagent.jar (see service.json); accepted "
          + "without the agent: none, simple, batch");
    }
    if (mode != Config.Mode.AGENT && agent) {
      throw new Config.ConfigException("TRACETAX_PROCESSOR=" + mode.label() + " must not run "
          + "under the OpenTelemetry Java agent; accepted with -javaagent: agent");
    }
  }

  static ThreadFactory named(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(false);
      return t;
    };
  }
}
