package io.tracetax.demo;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * {@code GET /healthz}: status, language, mode and whether any OpenTelemetry class is loaded.
 *
 * <p>otel_loaded is computed from the JVM's own list of loaded classes, obtained through the
 * DiagnosticCommand MBean (the same thing as {@code jcmd <pid> VM.class_hierarchy}). That asks the
 * VM and loads nothing from io.opentelemetry, unlike Class.forName, which would load the class it
 * looks for. It sees every class loader (application, bootstrap, and the Java agent's own), so it
 * is true under the agent as well. Once true it stays true (classes are never unloaded here), so
 * the result is cached after the first positive answer.
 */
final class HealthHandler implements HttpHandler {

  private final String mode;
  private volatile boolean otelSeen;

  HealthHandler(String mode) {
    this.mode = mode;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try {
      boolean loaded = otelLoaded();
      WorkHandler.send(exchange, 200, "{\"status\":\"ok\",\"language\":\"java\",\"processor\":\""
          + mode + "\",\"otel_loaded\":" + loaded + "}");
    } finally {
      exchange.close();
    }
  }

  boolean otelLoaded() {
    if (otelSeen) {
      return true;
    }
    boolean seen = loadedClassNames().contains("io.opentelemetry.");
    otelSeen = seen;
    return seen;
  }

  /** Text listing every loaded class, one per line (VM.class_hierarchy). */
  static String loadedClassNames() {
    try {
      MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
      ObjectName dcmd = new ObjectName("com.sun.management:type=DiagnosticCommand");
      Object out = mbs.invoke(dcmd, "vmClassHierarchy", new Object[] {new String[0]},
          new String[] {String[].class.getName()});
      return String.valueOf(out);
    } catch (Exception e) {
      throw new IllegalStateException("cannot list loaded classes: " + e, e);
    }
  }
}
