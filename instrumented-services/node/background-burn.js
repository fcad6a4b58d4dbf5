'use strict';
// TRACETAX_INJECT_BACKGROUND_US every TRACETAX_INJECT_BACKGROUND_PERIOD_MS: a known cost off the
// request path. Node runs JavaScript on one thread, so a setInterval burst would block the event
// loop and land in the requests' latency: the burst runs in a worker_threads Worker instead (its
// own thread and V8 isolate in the same process), which spins that much CPU time every period
// (busyWait) and touches no request. Its CPU shows in the process's total; requests feel it only
// through sharing the core. Node 20 has no thread CPU clock, so a burst counts the process's CPU
// (busyWait): what the main thread runs during a burst shortens it by as much.

const { Worker, isMainThread, workerData } = require('node:worker_threads');

// Start the burner thread in this process; returns it, or null when there is nothing to burn.
function startBackgroundBurn(burnUs, periodMs) {
  if (burnUs <= 0) return null;
  const worker = new Worker(__filename, { workerData: { burnUs, periodMs }, name: 'tracetax-background-inject' });
  worker.unref(); // never what keeps the process alive: the server's shutdown decides
  worker.on('error', err => process.stderr.write(`background burn: ${err.message}\n`));
  return worker;
}

if (!isMainThread && workerData && workerData.burnUs > 0) {
  const { busyWait } = require('./handler');
  const { burnUs, periodMs } = workerData;
  // Fixed rate: a burst starts a period after the previous one started (setInterval would count
  // the period from the end of the callback), so the CPU is burn/period exactly.
  let next = performance.now() + periodMs;
  const tick = () => {
    busyWait(burnUs);
    next += periodMs;
    setTimeout(tick, Math.max(0, next - performance.now()));
  };
  setTimeout(tick, periodMs);
}

module.exports = { startBackgroundBurn };
