'use strict';
// Configuration from the environment, validated before anything else is loaded.
//
// This module loads no OpenTelemetry code (the `none` mode must stay a true baseline). The SDK
// itself only warns and falls back on bad values, and in this SDK line several variables are not
// read at all by the packages we use (OTEL_BSP_* by @opentelemetry/sdk-trace, OTEL_BLRP_* by
// @opentelemetry/sdk-logs, OTEL_METRIC_EXPORT_INTERVAL by @opentelemetry/sdk-metrics): they are
// parsed here and handed to the SDK explicitly. A bad value stops the process: one line on stderr
// naming the variable, the value and the accepted values; exit code 2.

const LANGUAGE = 'node';
const DEFAULT_SERVICE_NAME = 'tracetax-demo-node';
const PROCESSORS = ['none', 'simple', 'batch'];
const PROTOCOLS = ['grpc', 'http/protobuf'];
const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];
const RATIO_SAMPLERS = ['traceidratio', 'parentbased_traceidratio'];
const SIGNALS = ['TRACES', 'METRICS', 'LOGS'];
const EXPORTERS = ['otlp', 'none'];
// TRACETAX_INJECT_BUSY_US: a known cost for checking the harness, at most 1 s per request.
const MAX_INJECT_BUSY_US = 1_000_000;
// TRACETAX_INJECT_BACKGROUND_US every TRACETAX_INJECT_BACKGROUND_PERIOD_MS: a known cost off the
// request path (a worker thread), at most 1 s per period of 1 ms..1 h (default 2 s).
const MAX_INJECT_BACKGROUND_US = 1_000_000;
const MAX_INJECT_BACKGROUND_PERIOD_MS = 3_600_000;
const DEFAULT_INJECT_BACKGROUND_PERIOD_MS = 2000;
// TRACETAX_WORKERS: node:cluster worker processes serving the port (1: one process, no cluster).
const MAX_WORKERS = 64;

// [variable, minimum, default]: milliseconds or item counts (defaults from the OTel spec).
const INTEGERS = [
  ['OTEL_BSP_SCHEDULE_DELAY', 0, 5000],
  ['OTEL_BSP_MAX_QUEUE_SIZE', 1, 2048],
  ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 1, 512],
  ['OTEL_BSP_EXPORT_TIMEOUT', 0, 30000],
  ['OTEL_BLRP_SCHEDULE_DELAY', 0, 1000],
  ['OTEL_BLRP_MAX_QUEUE_SIZE', 1, 2048],
  ['OTEL_BLRP_MAX_EXPORT_BATCH_SIZE', 1, 512],
  ['OTEL_BLRP_EXPORT_TIMEOUT', 0, 30000],
  ['OTEL_METRIC_EXPORT_INTERVAL', 1, 60000],
  ['OTEL_METRIC_EXPORT_TIMEOUT', 0, 30000],
  ['OTEL_EXPORTER_OTLP_TIMEOUT', 0, 10000],
  ['OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', 0, 10000],
  ['OTEL_EXPORTER_OTLP_METRICS_TIMEOUT', 0, 10000],
  ['OTEL_EXPORTER_OTLP_LOGS_TIMEOUT', 0, 10000],
];

class ConfigError extends Error {
  constructor(name, value, accepted) {
    super(`invalid ${name}="${value}": accepted values: ${accepted}`);
  }
}

// An empty value counts as unset, as the OTel spec says.
function get(env, name) {
  const value = (env[name] ?? '').trim();
  return value === '' ? undefined : value;
}

function isDirectory(p) {
  try {
    return require('node:fs').statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function load(env = process.env) {
  const processor = (get(env, 'TRACETAX_PROCESSOR') ?? 'batch').toLowerCase();
  if (!PROCESSORS.includes(processor)) {
    throw new ConfigError('TRACETAX_PROCESSOR', env.TRACETAX_PROCESSOR, PROCESSORS.join('|'));
  }

  const portRaw = get(env, 'PORT') ?? '8080';
  if (!/^[0-9]{1,5}$/.test(portRaw) || Number(portRaw) < 1 || Number(portRaw) > 65535) {
    throw new ConfigError('PORT', portRaw, 'an integer 1..65535');
  }

  const busyRaw = get(env, 'TRACETAX_INJECT_BUSY_US') ?? '0';
  if (!/^[0-9]{1,7}$/.test(busyRaw) || Number(busyRaw) > MAX_INJECT_BUSY_US) {
    throw new ConfigError(
      'TRACETAX_INJECT_BUSY_US',
      busyRaw,
      'an integer 0..1000000 (microseconds of busy-wait per /work request; unset: 0)',
    );
  }

  const backgroundRaw = get(env, 'TRACETAX_INJECT_BACKGROUND_US') ?? '0';
  if (!/^[0-9]{1,7}$/.test(backgroundRaw) || Number(backgroundRaw) > MAX_INJECT_BACKGROUND_US) {
    throw new ConfigError(
      'TRACETAX_INJECT_BACKGROUND_US',
      backgroundRaw,
      'an integer 0..1000000 (microseconds of background busy-wait per period; unset: 0)',
    );
  }
  const periodRaw = get(env, 'TRACETAX_INJECT_BACKGROUND_PERIOD_MS') ?? String(DEFAULT_INJECT_BACKGROUND_PERIOD_MS);
  if (!/^[0-9]{1,7}$/.test(periodRaw) || Number(periodRaw) < 1 || Number(periodRaw) > MAX_INJECT_BACKGROUND_PERIOD_MS) {
    throw new ConfigError(
      'TRACETAX_INJECT_BACKGROUND_PERIOD_MS',
      periodRaw,
      'an integer 1..3600000 (milliseconds between background bursts; unset: 2000)',
    );
  }

  const workersRaw = get(env, 'TRACETAX_WORKERS') ?? '1';
  if (!/^[0-9]{1,2}$/.test(workersRaw) || Number(workersRaw) < 1 || Number(workersRaw) > MAX_WORKERS) {
    throw new ConfigError(
      'TRACETAX_WORKERS',
      workersRaw,
      'an integer 1..64 (worker processes serving the port through node:cluster; unset: 1, no cluster)',
    );
  }

  // The on-demand CPU profiler (main.js): SIGUSR2 starts it, the next SIGUSR2 writes the profile here.
  const cpuProfileDir = get(env, 'TRACETAX_CPU_PROFILE_DIR');
  if (cpuProfileDir !== undefined && !isDirectory(cpuProfileDir)) {
    throw new ConfigError(
      'TRACETAX_CPU_PROFILE_DIR',
      cpuProfileDir,
      'an existing directory (SIGUSR2 toggles the CPU profiler, profiles are written there; unset: no profiler)',
    );
  }

  const ints = {};
  for (const [name, minimum, dflt] of INTEGERS) {
    const raw = get(env, name);
    if (raw === undefined) {
      ints[name] = dflt;
      continue;
    }
    if (!/^[0-9]+$/.test(raw) || Number(raw) < minimum || !Number.isSafeInteger(Number(raw))) {
      throw new ConfigError(name, raw, `an integer >= ${minimum}`);
    }
    ints[name] = Number(raw);
  }
  for (const prefix of ['OTEL_BSP', 'OTEL_BLRP']) {
    const queue = ints[`${prefix}_MAX_QUEUE_SIZE`];
    const batch = ints[`${prefix}_MAX_EXPORT_BATCH_SIZE`];
    if (batch > queue) {
      throw new ConfigError(
        `${prefix}_MAX_EXPORT_BATCH_SIZE`,
        String(batch),
        `an integer >= 1 and <= ${prefix}_MAX_QUEUE_SIZE (${queue})`,
      );
    }
  }

  const protocols = {};
  const generalProtocol = get(env, 'OTEL_EXPORTER_OTLP_PROTOCOL');
  if (generalProtocol !== undefined && !PROTOCOLS.includes(generalProtocol)) {
    throw new ConfigError('OTEL_EXPORTER_OTLP_PROTOCOL', generalProtocol, PROTOCOLS.join('|'));
  }
  for (const signal of SIGNALS) {
    const name = `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`;
    const raw = get(env, name);
    if (raw !== undefined && !PROTOCOLS.includes(raw)) {
      throw new ConfigError(name, raw, PROTOCOLS.join('|'));
    }
    protocols[signal] = raw ?? generalProtocol ?? 'http/protobuf';
  }

  for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', ...SIGNALS.map(s => `OTEL_EXPORTER_OTLP_${s}_ENDPOINT`)]) {
    const raw = get(env, name);
    if (raw === undefined) continue;
    let url = null;
    try {
      url = new URL(raw);
    } catch {
      url = null;
    }
    if (url === null || !['http:', 'https:'].includes(url.protocol) || !url.hostname) {
      throw new ConfigError(name, raw, 'an http:// or https:// URL, e.g. http://127.0.0.1:4318');
    }
  }

  const sampler = get(env, 'OTEL_TRACES_SAMPLER');
  if (sampler !== undefined && !SAMPLERS.includes(sampler)) {
    throw new ConfigError('OTEL_TRACES_SAMPLER', sampler, SAMPLERS.join('|'));
  }
  const samplerArg = get(env, 'OTEL_TRACES_SAMPLER_ARG');
  if (RATIO_SAMPLERS.includes(sampler) && samplerArg !== undefined) {
    const ratio = /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(samplerArg) ? Number(samplerArg) : NaN;
    if (!(ratio >= 0 && ratio <= 1)) {
      throw new ConfigError('OTEL_TRACES_SAMPLER_ARG', samplerArg, 'a number in [0, 1] for a ratio sampler');
    }
  }

  const attrs = get(env, 'OTEL_RESOURCE_ATTRIBUTES');
  if (attrs !== undefined) {
    for (const item of attrs.split(',')) {
      const eq = item.indexOf('=');
      if (item.trim() !== '' && (eq < 0 || item.slice(0, eq).trim() === '')) {
        throw new ConfigError('OTEL_RESOURCE_ATTRIBUTES', attrs, 'comma-separated key=value pairs');
      }
    }
  }

  return {
    processor,
    signals: signalsOn(env),
    port: Number(portRaw),
    injectBusyUs: Number(busyRaw),
    injectBackgroundUs: Number(backgroundRaw),
    injectBackgroundPeriodMs: Number(periodRaw),
    workers: Number(workersRaw),
    cpuProfileDir,
    protocols,
    bsp: {
      scheduledDelayMillis: ints.OTEL_BSP_SCHEDULE_DELAY,
      maxQueueSize: ints.OTEL_BSP_MAX_QUEUE_SIZE,
      maxExportBatchSize: ints.OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
      exportTimeoutMillis: ints.OTEL_BSP_EXPORT_TIMEOUT,
    },
    blrp: {
      scheduledDelayMillis: ints.OTEL_BLRP_SCHEDULE_DELAY,
      maxQueueSize: ints.OTEL_BLRP_MAX_QUEUE_SIZE,
      maxExportBatchSize: ints.OTEL_BLRP_MAX_EXPORT_BATCH_SIZE,
      exportTimeoutMillis: ints.OTEL_BLRP_EXPORT_TIMEOUT,
    },
    metricExportIntervalMillis: ints.OTEL_METRIC_EXPORT_INTERVAL,
    metricExportTimeoutMillis: Math.min(ints.OTEL_METRIC_EXPORT_TIMEOUT, ints.OTEL_METRIC_EXPORT_INTERVAL),
  };
}

// The standard switches, honoured here since the service builds its providers by hand: the set of
// signals ('TRACES', 'METRICS', 'LOGS') whose OTEL_<signal>_EXPORTER is not `none`, empty when
// OTEL_SDK_DISABLED is `true`. An off signal keeps the API's no-op provider.
function signalsOn(env) {
  const on = new Set();
  for (const signal of SIGNALS) {
    const name = `OTEL_${signal}_EXPORTER`;
    const raw = get(env, name);
    if (raw !== undefined && !EXPORTERS.includes(raw.toLowerCase())) {
      throw new ConfigError(name, raw, EXPORTERS.join('|'));
    }
    if ((raw ?? 'otlp').toLowerCase() !== 'none') on.add(signal);
  }
  const disabled = get(env, 'OTEL_SDK_DISABLED');
  if (disabled !== undefined && !['true', 'false'].includes(disabled.toLowerCase())) {
    throw new ConfigError('OTEL_SDK_DISABLED', disabled, 'true|false');
  }
  return disabled !== undefined && disabled.toLowerCase() === 'true' ? new Set() : on;
}

function loadOrExit() {
  try {
    return load();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${DEFAULT_SERVICE_NAME}: ${err.message}\n`);
    process.exit(2);
  }
}

module.exports = { LANGUAGE, DEFAULT_SERVICE_NAME, ConfigError, load, loadOrExit };
