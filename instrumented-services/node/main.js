'use strict';
// Entry point of the TraceTax Node.js demo service.
//
// 1. Validate the environment (config.js; no OTel code). Bad input: one line on stderr, exit 2.
// 2. `simple`/`batch`: require otel.js and build the SDK; this enables the http instrumentation,
//    so it must happen before `http` is required below. `none`: no @opentelemetry module is loaded.
// 3. Serve with node:http until SIGTERM/SIGINT: stop accepting, let in-flight requests finish (at
//    most GRACEFUL_MS, then remaining connections are closed), shut the OTel providers down (flush;
//    at most OTEL_SHUTDOWN_MS), exit 0. A watchdog exits at HARD_EXIT_MS whatever happens.
// With TRACETAX_CPU_PROFILE_DIR set, SIGUSR2 toggles V8's CPU profiler (cpu-profiler.js).

const config = require('./config');

const GRACEFUL_MS = 3000;
const OTEL_SHUTDOWN_MS = 6000;
const HARD_EXIT_MS = 9500;

const cfg = config.loadOrExit();
const name = config.DEFAULT_SERVICE_NAME;

let telemetry;
let shutdownOtel = null;
if (cfg.processor === 'none') {
  telemetry = new (require('./handler').NoTelemetry)();
} else {
  const otel = require('./otel'); // the only place OpenTelemetry gets loaded
  shutdownOtel = otel.setupOtelSdk(cfg);
  telemetry = new otel.OTelTelemetry();
}

if (cfg.cpuProfileDir !== undefined) require('./cpu-profiler').installCpuProfiler(cfg.cpuProfileDir, name);

const http = require('http'); // after the OTel setup: instrumentation-http patches it on load
const { makeHandler } = require('./handler');

const server = http.createServer(makeHandler(telemetry, cfg.processor, cfg.injectBusyUs));
server.on('error', err => {
  process.stderr.write(`${name}: ${err.message}\n`);
  process.exit(1);
});
server.listen(cfg.port, '0.0.0.0', () => {
  process.stdout.write(
    `${name}: listening on 0.0.0.0:${cfg.port} processor=${cfg.processor} inject_busy_us=${cfg.injectBusyUs}\n`,
  );
});

let stopping = false;
async function stop(signal) {
  if (stopping) return;
  stopping = true;
  setTimeout(() => {
    process.stderr.write(`${name}: shutdown took longer than ${HARD_EXIT_MS} ms, exiting\n`);
    process.exit(0);
  }, HARD_EXIT_MS).unref();

  // close() stops accepting and closes idle keep-alive connections; it calls back once the
  // in-flight requests are done. Whatever is still open after GRACEFUL_MS is closed by force.
  await new Promise(resolve => {
    const force = setTimeout(() => server.closeAllConnections(), GRACEFUL_MS);
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });

  if (shutdownOtel !== null) {
    try {
      await shutdownOtel(OTEL_SHUTDOWN_MS);
    } catch (err) {
      for (const e of err.errors ?? [err]) process.stderr.write(`${name}: ${e && e.message ? e.message : e}\n`);
    }
  }
  process.stdout.write(`${name}: stopped (${signal})\n`);
  process.exit(0);
}

process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
