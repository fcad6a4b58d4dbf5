'use strict';
// Summarise a V8 .cpuprofile (from the SIGUSR2 profiler in main.js, or `node --cpu-prof`) by where
// the time went on the one JS thread.
//
//   node tools/cpuprofile-summary.js profiles/CPU.*.cpuprofile [--stacks N]
//
// Node runs request handling and the OTel SDK's export work on the same event loop; a sample's
// stack tells them apart by its bottom frames (what the event loop was dispatching) and by the
// packages its frames come from:
//   request          request-path samples (under parserOnHeadersComplete/parserOnIncoming of
//                    node:_http_server) whose innermost non-Node frame is not OTel: handler.js, http
//   export@timer     the BatchSpanProcessor / BatchLogRecordProcessor timer (processTimers >
//                    listOnTimeout > ...flush > _flushOneBatch) or the metric reader's interval,
//                    down into @opentelemetry/otlp-* / exporter-* serialisation and sending
//   export@request   exporter frames under a request stack: SimpleSpanProcessor exports inline,
//                    inside span.end() on the request path
//   export@io        exporter frames under socket/microtask callbacks (the export's HTTP or gRPC
//                    response handling, retries)
//   otel@request     request-path samples whose innermost non-Node frame is OTel code (span
//                    start/end, attributes, context, the http instrumentation, log emit, metrics)
//   otel-other       any other stack with @opentelemetry frames
//   idle, gc, program, other (other: module loading at start-up and Node-internal callbacks with
//                    no frame to attribute them by, e.g. the tail of a piped socket write)

const fs = require('node:fs');

process.stdout.on('error', () => process.exit(0)); // e.g. piped into `head`

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node tools/cpuprofile-summary.js FILE.cpuprofile [--stacks N]\n');
  process.exit(2);
}
const stacksIdx = process.argv.indexOf('--stacks');
const showStacks = stacksIdx > 0 ? Number(process.argv[stacksIdx + 1]) : 0;

const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map(n => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

function pkgOf(url) {
  const otel = url.match(/@opentelemetry\/([^/]+)/);
  if (otel) return `@opentelemetry/${otel[1]}`;
  const mod = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (mod) return mod[1];
  if (url.startsWith('node:')) return url;
  return url.split('/').pop();
}

function stackOf(id) {
  const frames = [];
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const cf = nodes.get(cur).callFrame;
    frames.push({ fn: cf.functionName || '(anonymous)', pkg: pkgOf(cf.url) });
  }
  return frames.reverse(); // root first
}

// The service makes no outgoing calls of its own: HTTP-client and DNS frames belong to the export.
const EXPORT_PKG = /^(@opentelemetry\/(otlp-|exporter-)|@grpc\/|protobufjs|node:_http_client|node:dns)/;
const EXPORT_FN = new Set(['_flushOneBatch', '_flushAll', '_executeExport', '_doRun', '_runOnce', 'export']);

function classify(frames) {
  const leaf = frames[frames.length - 1].fn;
  if (leaf === '(idle)') return 'idle';
  if (leaf === '(garbage collector)') return 'gc';
  if (leaf === '(program)') return 'program';
  const isRequest = frames.some(
    f => f.fn === 'parserOnHeadersComplete' || f.fn === 'parserOnIncoming' || f.pkg === 'handler.js',
  );
  const isTimer = frames.some(f => f.fn === 'listOnTimeout' || f.fn === 'processTimers');
  const isExport = frames.some(
    f => EXPORT_PKG.test(f.pkg) || (f.pkg.startsWith('@opentelemetry/') && EXPORT_FN.has(f.fn)),
  );
  const isOtel = frames.some(f => f.pkg.startsWith('@opentelemetry/'));
  if (isExport) return isRequest ? 'export@request' : isTimer ? 'export@timer' : 'export@io';
  if (isRequest) {
    // Attribute to the innermost frame outside Node's own code: the handler (request) or OTel.
    const owner = [...frames].reverse().find(f => f.pkg !== '' && !f.pkg.startsWith('node:'));
    return owner && owner.pkg.startsWith('@opentelemetry/') ? 'otel@request' : 'request';
  }
  if (isOtel) return 'otel-other';
  return 'other';
}

// Each sample lasts until the next one: weight by the time deltas.
const totals = new Map();
const stacks = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas?.[i + 1] ?? profile.timeDeltas?.[i] ?? 0;
  const frames = stackOf(id);
  const cat = classify(frames);
  totals.set(cat, (totals.get(cat) ?? 0) + dt);
  total += dt;
  if (showStacks > 0) {
    const key = `${cat}  ${frames
      .slice(1)
      .map(f => `${f.fn}[${f.pkg}]`)
      .join(' > ')}`;
    stacks.set(key, (stacks.get(key) ?? 0) + dt);
  }
});

const busy = total - (totals.get('idle') ?? 0);
process.stdout.write(`${file}: ${profile.samples.length} samples, ${(total / 1e6).toFixed(2)} s, busy ${(busy / 1e6).toFixed(2)} s\n`);
for (const [cat, us] of [...totals.entries()].sort((a, b) => b[1] - a[1])) {
  const ofBusy = cat === 'idle' ? '' : `  ${((100 * us) / busy).toFixed(1)}% of busy`;
  process.stdout.write(`  ${cat.padEnd(15)} ${(us / 1e3).toFixed(1).padStart(10)} ms${ofBusy}\n`);
}
if (showStacks > 0) {
  process.stdout.write(`\ntop ${showStacks} stacks:\n`);
  for (const [key, us] of [...stacks.entries()].sort((a, b) => b[1] - a[1]).slice(0, showStacks)) {
    process.stdout.write(`${(us / 1e3).toFixed(1).padStart(9)} ms  ${key}\n`);
  }
}
