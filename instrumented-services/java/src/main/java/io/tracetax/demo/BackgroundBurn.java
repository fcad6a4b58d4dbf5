package io.tracetax.demo;

import java.util.concurrent.TimeUnit;

/**
 * TRACETAX_INJECT_BACKGROUND_US every TRACETAX_INJECT_BACKGROUND_PERIOD_MS: a known cost off the
 * request path. One daemon thread ({@code tracetax-background-inject}) sleeps a period, then spins
 * the given CPU time on its own CPU clock ({@link WorkHandler#busyWait}), and again. It touches
 * no request: its CPU shows in the process's total but in no request's latency, except through
 * sharing the core with the request threads.
 */
final class BackgroundBurn {

  static final String THREAD_NAME = "tracetax-background-inject";

  private BackgroundBurn() {}

  /** Starts the burner thread; returns null when there is nothing to burn (0 µs). */
  static Thread start(long burnMicros, long periodMillis) {
    if (burnMicros <= 0) {
      return null;
    }
    long burnNanos = TimeUnit.MICROSECONDS.toNanos(burnMicros);
    long periodNanos = TimeUnit.MILLISECONDS.toNanos(periodMillis);
    Thread thread = new Thread(() -> {
      // Fixed rate: each burst starts a period after the previous one started, so a burst that
      // is preempted does not shift the ones after it.
      long next = System.nanoTime() + periodNanos;
      try {
        while (true) {
          long wait = next - System.nanoTime();
          if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
          }
          WorkHandler.busyWait(burnNanos);
          next += periodNanos;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // the process is stopping
      }
    }, THREAD_NAME);
    thread.setDaemon(true);
    thread.start();
    return thread;
  }
}
