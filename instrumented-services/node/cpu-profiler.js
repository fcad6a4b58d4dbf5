'use strict';
// The on-demand V8 CPU profiler TraceTax's stack sampler drives (profiling/samplers.py,
// NodeCpuProfile). Used two ways:
// - by the demo service: main.js calls installCpuProfiler(TRACETAX_CPU_PROFILE_DIR);
// - by any Node service under the zero-code launch preset, through cpu-profiler-preload.js
//   (`node --require`). It loads no OpenTelemetry module.

// The profiler samples every 2 ms (V8's default is 1 ms), like the engine's other samplers.
const CPU_PROFILE_INTERVAL_US = 2000;

// On-demand V8 CPU profiler (TRACETAX_CPU_PROFILE_DIR): the first SIGUSR2 starts it through the
// inspector's Profiler domain, the next one stops it and writes CPU.<pid>.<nnnn>.cpuprofile into the
// directory (written under a .tmp name, then renamed: a file with the final name is complete).
// Between a stop and the next start nothing is enabled, so it costs nothing outside its windows.
// SIGUSR2 because SIGUSR1 is Node's own (it opens the inspector port). Signals are handled in order.
function installCpuProfiler(dir, name) {
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

module.exports = { installCpuProfiler };

