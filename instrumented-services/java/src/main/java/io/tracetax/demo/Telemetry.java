package io.tracetax.demo;

import com.sun.net.httpserver.Filter;
import java.util.function.LongSupplier;

/**
 * What the handler needs from telemetry, in plain Java types.
 *
 * <p>The handler only ever talks to this interface. In mode {@code none} it gets {@link #NONE},
 * so no io.opentelemetry class is ever loaded; in simple/batch/agent it gets {@link OtelTelemetry},
 * the only class (besides {@link OtelSetup}) that touches the OpenTelemetry API.
 */
interface Telemetry {

  /** Runs one chunk of work inside child span {@code index} (INTERNAL or CLIENT). */
  long child(int index, long iters, LongSupplier work);

  /** The per-request log record and metrics (called once per /work request). */
  void requestDone(long iters, int spans, double seconds, boolean ok);

  /** The SERVER-span filter for the /work context, or null when nothing should be installed. */
  Filter serverFilter();

  Telemetry NONE =
      new Telemetry() {
        @Override
        public long child(int index, long iters, LongSupplier work) {
          return work.getAsLong();
        }

        @Override
        public void requestDone(long iters, int spans, double seconds, boolean ok) {}

        @Override
        public Filter serverFilter() {
          return null;
        }
      };
}
