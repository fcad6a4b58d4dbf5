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
//
// TRACETAX_WORKERS=N > 1: this file runs as the node:cluster primary (cluster-primary.js: forks N
// workers, loads no OTel module, serves nothing) and again in each worker, which does 2. and 3.
// with an SDK of its own. N=1 (the default): node:cluster is never loaded, one process as above.

const config = require('./config');

const GRACEFUL_MS = 3000;
const OTEL_SHUTDOWN_MS = 6000;
const HARD_EXIT_MS = 9500;

const cfg = config.loadOrExit();
const name = config.DEFAULT_SERVICE_NAME;

const cluster = cfg.workers > 1 ? require('node:cluster') : null;
if (cluster !== null && cluster.isPrimary) {
  require('./cluster-primary').runPrimary(cfg, name, HARD_EXIT_MS);
} else {
  serve(cluster === null ? null : cluster.worker);
}

// One process serving the port: the whole service, or (`worker` set) one cluster worker.
function serve(worker) {
  const label = worker === null ? name : `${name} worker ${worker.id}`;

  let telemetry;
  let shutdownOtel = null;
  if (cfg.processor === 'none') {
    telemetry = new (require('./handler').NoTelemetry)();
  } else {
    const otel = require('./otel'); // the only place OpenTelemetry gets loaded
    shutdownOtel = otel.setupOtelSdk(cfg, worker === null ? undefined : { index: worker.id });
    telemetry = new otel.OTelTelemetry();
  }

  if (cfg.cpuProfileDir !== undefined) require('./cpu-profiler').installCpuProfiler(cfg.cpuProfileDir, label);

  const http = require('http'); // after the OTel setup: instrumentation-http patches it on load
  const { makeHandler } = require('./handler');

  const handle = makeHandler(telemetry, cfg.processor, cfg.injectBusyUs);
  // Each process serving requests (every cluster worker, when there are several) burns on its own.
  require('./background-burn').startBackgroundBurn(cfg.injectBackgroundUs, cfg.injectBackgroundPeriodMs);
  const server = http.createServer(worker === null ? handle : healthyOnceAllListen(handle));
  server.on('error', err => {
    process.stderr.write(`${label}: ${err.message}\n`);
    process.exit(1);
  });
  server.listen(cfg.port, '0.0.0.0', () => {
    // A worker's listening is reported by the primary, once every worker listens.
    if (worker !== null) return;
    process.stdout.write(
      `${name}: listening on 0.0.0.0:${cfg.port} processor=${cfg.processor} inject_busy_us=${cfg.injectBusyUs} ` +
        `inject_background_us=${cfg.injectBackgroundUs} every ${cfg.injectBackgroundPeriodMs} ms\n`,
    );
  });

  let stopping = false;
  async function stop(signal) {
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      process.stderr.write(`${label}: shutdown took longer than ${HARD_EXIT_MS} ms, exiting\n`);
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
        for (const e of err.errors ?? [err]) process.stderr.write(`${label}: ${e && e.message ? e.message : e}\n`);
      }
    }
    process.stdout.write(`${label}: stopped (${signal})\n`);
    process.exit(0);
  }

  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  if (worker !== null) {
    // The primary is gone (killed): node:cluster exits the worker right after this event.
    worker.on('disconnect', () => {
      if (!stopping) process.stderr.write(`${label}: the cluster primary is gone, exiting\n`);
    });
  }
}

// A cluster worker's /healthz answers 503 until the primary says every worker listens, so that
// "healthy" (what the engine waits for) means the whole cluster serves, each worker with its
// SIGUSR2 profiler installed. Everything else is served from the start.
function healthyOnceAllListen(handle) {
  let serving = false;
  process.on('message', message => {
    if (message && message.tracetax === 'serving') serving = true;
  });
  return function handleWorker(req, res) {
    if (!serving && (req.url === '/healthz' || req.url.startsWith('/healthz?'))) {
      const body = JSON.stringify({ status: 'starting', workers: cfg.workers });
      res.writeHead(503, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    handle(req, res);
  };
}
