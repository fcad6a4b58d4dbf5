'use strict';
// The work handler: GET /work and GET /healthz, a plain node:http request listener.
//
// This module loads no OpenTelemetry code. Telemetry calls go through a small object handed in by
// the entry point: NoTelemetry below in `none` mode, otel.js's OTelTelemetry (on the global OTel
// API providers) in `simple`/`batch` mode. The handler does the same work in every mode.

const path = require('node:path');

const { LANGUAGE } = require('./config');

const MAX_ITERS = 10_000_000;
const MAX_SPANS = 1000;
const DIGITS = /^[0-9]{1,12}$/;

// `none` mode: no spans, no logs, no metrics.
class NoTelemetry {
  childSpan(_index, _iters, fn) {
    return fn();
  }

  requestDone(_iters, _spans, _durationS) {}
}

// Deterministic CPU work: acc += i ^ arr[i % 64] for i in [start, end). Every value stays below
// 2^53 (iters <= 10^7), so the sum is exact in a JS number and equal to the other languages'.
function compute(start, end, arr) {
  let acc = 0;
  for (let i = start; i < end; i++) {
    acc += i ^ arr[i & 63];
  }
  return acc;
}

// The CPU time this thread has run, in µs: its own clock where Node has one (process.threadCpuUsage,
// Node 23.9 on), else the process's (process.cpuUsage). JavaScript runs on one thread, so on the
// request path the process's clock moves with it, but for what V8's and libuv's helper threads run
// meanwhile; in the background Worker it also moves with the main thread's requests.
const cpuClock =
  typeof process.threadCpuUsage === 'function' ? () => process.threadCpuUsage() : () => process.cpuUsage();
function cpuMicros() {
  const { user, system } = cpuClock();
  return user + system;
}

// Spin until `us` microseconds of CPU time have run (TRACETAX_INJECT_BUSY_US): a known cost of
// that CPU time however often the spin is preempted (on the wall clock a preempted spin would end
// having used less). A request's latency grows by at least that: by that alone on an idle core.
// No sleep.
function busyWait(us) {
  if (us <= 0) return;
  const deadline = cpuMicros() + us;
  while (cpuMicros() < deadline) {
    // spin: the clock read is the work
  }
}

function otelLoaded() {
  // Honest check: has any @opentelemetry module been loaded into this process?
  const marker = `${path.sep}@opentelemetry${path.sep}`;
  return Object.keys(require.cache).some(p => p.includes(marker));
}

function param(query, name, dflt, low, high) {
  const raw = query.get(name);
  if (raw === null) return { value: dflt };
  if (!DIGITS.test(raw) || Number(raw) < low || Number(raw) > high) {
    return { error: `${name} must be an integer in [${low}, ${high}], got ${JSON.stringify(raw)}` };
  }
  return { value: Number(raw) };
}

function send(res, status, payload) {
  const body = JSON.stringify(payload);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function makeHandler(telemetry, processor, injectBusyUs = 0) {
  function work(res, query) {
    const started = process.hrtime.bigint();
    const iters = param(query, 'iters', 1000, 0, MAX_ITERS);
    if (iters.error) return send(res, 400, { error: iters.error });
    const spans = param(query, 'spans', 1, 1, MAX_SPANS);
    if (spans.error) return send(res, 400, { error: spans.error });
    const n = iters.value;
    const k = spans.value;

    busyWait(injectBusyUs);
    const arr = new Int32Array(64); // the small per-request allocation
    for (let j = 0; j < 64; j++) arr[j] = j;
    let sum = 0;
    if (k === 1) {
      sum = compute(0, n, arr);
    } else {
      // Split [0, n) into k-1 contiguous chunks whose sizes differ by at most one.
      const parts = k - 1;
      const base = Math.floor(n / parts);
      const extra = n % parts;
      let start = 0;
      for (let p = 0; p < parts; p++) {
        const end = start + base + (p < extra ? 1 : 0);
        const s = start;
        sum += telemetry.childSpan(p, end - s, () => compute(s, end, arr));
        start = end;
      }
    }

    telemetry.requestDone(n, k, Number(process.hrtime.bigint() - started) / 1e9);
    send(res, 200, { iters: n, spans: k, sum });
  }

  return function handle(req, res) {
    const url = new URL(req.url, 'http://localhost');
    if (url.pathname === '/work' || url.pathname === '/healthz') {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('Allow', 'GET, HEAD');
        return send(res, 405, { error: 'method not allowed' });
      }
      if (url.pathname === '/work') return work(res, url.searchParams);
      return send(res, 200, { status: 'ok', language: LANGUAGE, processor, otel_loaded: otelLoaded() });
    }
    return send(res, 404, { error: 'not found' });
  };
}

module.exports = { makeHandler, NoTelemetry, compute, busyWait };
