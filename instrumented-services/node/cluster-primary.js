'use strict';
// The node:cluster primary, TRACETAX_WORKERS=N > 1 only (main.js). It forks N workers, each of which
// runs main.js again and serves the port with an OpenTelemetry SDK of its own; the primary itself
// loads no OpenTelemetry module and serves nothing (node:cluster's default round-robin: it accepts
// each connection and hands it to the next worker).
//
// - Once every worker listens: one "listening ... workers=N" line, and each worker is told to
//   answer /healthz (503 until then).
// - SIGTERM/SIGINT: SIGTERM to every worker (each runs the graceful stop: stop accepting, drain,
//   OTel flush), wait for them all, exit 0 (1 if one of them did not exit 0). Bounded: each worker
//   exits by its own HARD_EXIT_MS watchdog; whatever still runs a second later is killed, exit 1.
// - A worker that exits on its own is not replaced (a measurement must not go on with fewer
//   workers): logged, the others are stopped as above, exit 1.
// - TRACETAX_CPU_PROFILE_DIR: SIGUSR2 is passed to every worker, each writes its own profile.
// - The primary killed: node:cluster exits every worker on the IPC channel's 'disconnect'.

function runPrimary(cfg, name, hardExitMs) {
  const cluster = require('node:cluster');

  const workers = new Map(); // id -> Worker, while it runs
  let listening = 0;
  let stopping = null; // the reason, once stopping
  let failed = false;

  const pids = () => [...workers.values()].map(w => w.process.pid).join(',');
  const signalAll = sig => {
    for (const w of workers.values()) w.process.kill(sig);
  };

  function finish() {
    process.stdout.write(`${name}: stopped (${stopping}) workers=${cfg.workers}\n`);
    process.exit(failed ? 1 : 0);
  }

  function stop(reason) {
    if (stopping !== null) return;
    stopping = reason;
    // Each worker exits by its own watchdog at hardExitMs; this is the backstop a second later.
    const backstopMs = hardExitMs + 1000;
    setTimeout(() => {
      process.stderr.write(`${name}: workers ${pids()} still running ${backstopMs} ms after ${reason}: killed\n`);
      signalAll('SIGKILL');
      process.exit(1);
    }, backstopMs).unref();
    if (workers.size === 0) finish();
    signalAll('SIGTERM');
  }

  cluster.on('listening', () => {
    listening += 1;
    if (listening !== cfg.workers || stopping !== null) return;
    process.stdout.write(
      `${name}: listening on 0.0.0.0:${cfg.port} processor=${cfg.processor} inject_busy_us=${cfg.injectBusyUs} ` +
        `workers=${cfg.workers} (pids ${pids()})\n`,
    );
    for (const w of workers.values()) if (w.isConnected()) w.send({ tracetax: 'serving' });
  });

  cluster.on('exit', (worker, code, signal) => {
    workers.delete(worker.id);
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (stopping === null) {
      failed = true;
      process.stderr.write(
        `${name}: worker ${worker.id} (pid ${worker.process.pid}) exited on its own (${how}); ` +
          `not replaced: stopping the other workers, exit 1\n`,
      );
      stop(`worker ${worker.id} exited`);
    } else if (code !== 0) {
      failed = true;
      process.stderr.write(`${name}: worker ${worker.id} (pid ${worker.process.pid}) stopped with ${how}\n`);
    }
    if (workers.size === 0) finish();
  });

  for (let i = 0; i < cfg.workers; i++) {
    const worker = cluster.fork();
    // An IPC error (a send to a worker that just died) is not fatal: its 'exit' says what happened.
    worker.on('error', err => process.stderr.write(`${name}: worker ${worker.id}: ${err.message}\n`));
    workers.set(worker.id, worker);
  }

  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  if (cfg.cpuProfileDir !== undefined) process.on('SIGUSR2', () => signalAll('SIGUSR2'));
}

module.exports = { runPrimary };
