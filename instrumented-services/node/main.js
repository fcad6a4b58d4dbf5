'use strict';
// Entry point of the TraceTax Node.js demo service.
//
// 1. Validate the environment (config.js; no OTel code). Bad input: one line on stderr, exit 2.
// 2. `simple`/`batch`: require otel.js and build the SDK; this enables the http instrumentation,
//    so it must happen before `http` is required below. `none`: no @opentelemetry module is loaded.
// 3. Serve with node:http until SIGTERM/SIGINT: stop accepting, let in-flight requests finish (at
//    most GRACEFUL_MS, then remaining connections are closed), shut the OTel providers down (flush;
//    at most OTEL_SHUTDOWN_MS), exit 0. A watchdog exits at HARD_EXIT_MS whatever happens.
// With TRACETAX_CPU_PROFILE_DIR set, SIGUSR2 toggles V8's CPU profiler (installCpuProfiler below).

const config = require('./config');

const GRACEFUL_MS = 3000;
const OTEL_SHUTDOWN_MS = 6000;
const HARD_EXIT_MS = 9500;
// The on-demand profiler samples every 2 ms (V8's default is 1 ms), like the engine's other samplers.
const CPU_PROFILE_INTERVAL_US = 2000;

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

// On-demand V8 CPU profiler (TRACETAX_CPU_PROFILE_DIR): the first SIGUSR2 starts it through the
// inspector's Profiler domain, the next one stops it and writes CPU.<pid>.<nnnn>.cpuprofile into the
// directory (written under a .tmp name, then renamed: a file with the final name is complete).
// Between a stop and the next start nothing is enabled, so it costs nothing outside its windows.
// SIGUSR2 because SIGUSR1 is Node's own (it opens the inspector port). Signals are handled in order.
function installCpuProfiler(dir) {
  const fs = require('node:fs');
  const inspector = require('node:inspector');
  const path = require('node:path');
  const session = new inspector.Session();
  session.connect(); // in-process, no port; no domain is enabled until the first SIGUSR2
  const post = (method, params) =>
    new Promise((resolve, reject) => {
      session.post(method, params, (err, result) => (err ? reject(err) : resolve(result)));
    });
  let running = false;
  let written = 0;
  async function toggle() {
    if (!running) {
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: CPU_PROFILE_INTERVAL_US });
      await post('Profiler.start');
      running = true;
      process.stderr.write(`${name}: cpu profile started (SIGUSR2; the next SIGUSR2 writes it to ${dir})\n`);
      return;
    }
    running = false;
    const { profile } = await post('Profiler.stop');
    await post('Profiler.disable');
    written += 1;
    const file = path.join(dir, `CPU.${process.pid}.${String(written).padStart(4, '0')}.cpuprofile`);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(profile));
    fs.renameSync(`${file}.tmp`, file);
    process.stderr.write(`${name}: cpu profile written to ${file} (${profile.samples.length} samples)\n`);
  }
  let queue = Promise.resolve();
  process.on('SIGUSR2', () => {
    queue = queue.then(toggle).catch(err => process.stderr.write(`${name}: cpu profile: ${err.message}\n`));
  });
}

if (cfg.cpuProfileDir !== undefined) installCpuProfiler(cfg.cpuProfileDir);

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
