// The presets GET /api/v1/presets gives since "your service" (tracetax.spec.presets): the test
// fixtures' demo presets plus the zero-code launches.

import type { Preset } from "../../api/types";
import { presets } from "../../test/fixtures";

export const zeroCodePresets: Preset[] = [
  ...presets.slice(0, 4),
  {
    name: "zero-code",
    description: "Zero-code instrumentation.",
    processor: "agent",
    env: {},
    baseline: false,
    languages: ["python", "java", "node"],
  },
  {
    name: "ebpf",
    description: "Go eBPF.",
    processor: "ebpf",
    env: {},
    baseline: false,
    languages: ["go"],
  },
  ...presets.slice(4),
];
