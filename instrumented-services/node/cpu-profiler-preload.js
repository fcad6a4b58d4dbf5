'use strict';
// Preloaded into any Node service (NODE_OPTIONS=--require <this file>) by TraceTax's zero-code
// launch preset in rounds that sample stacks: installs the on-demand CPU profiler when
// TRACETAX_CPU_PROFILE_DIR is set. Nothing else: the service's own code is untouched.
const dir = process.env.TRACETAX_CPU_PROFILE_DIR;
if (dir) require('./cpu-profiler').installCpuProfiler(dir, `node pid ${process.pid}`);
