// The budget lines, generated from openapi.json (Budget's `x-budget-lines`): the lines the forms,
// verdicts and `tracetax check` commands show are the ones the backend publishes.

import { describe, expect, it } from "vitest";
import { BUDGET_LINES, budgetLabel, PIPELINE_BUDGET_LINES } from "./commands";

describe("budget lines generated from openapi.json", () => {
  it("has each subject's budget lines with their flags and units, in the backend's order", () => {
    expect(BUDGET_LINES.map((line) => [line.key, line.flag, line.unit])).toEqual([
      ["p50_overhead_pct", "--p50-overhead-pct", "pct"],
      ["p99_overhead_pct", "--p99-overhead-pct", "pct"],
      ["cpu_overhead_pct", "--cpu-overhead-pct", "pct"],
      ["p50_added_ms", "--p50-added-ms", "ms"],
      ["p99_added_ms", "--p99-added-ms", "ms"],
      ["cpu_added_us", "--cpu-added-us", "us"],
      ["max_dropped_spans", "--max-dropped-spans", "spans"],
      ["max_bytes_per_request", "--max-bytes-per-request", "bytes"],
      ["max_usd_per_month", "--max-usd-per-month", "usd"],
    ]);
    expect(PIPELINE_BUDGET_LINES.map((line) => [line.key, line.unit])).toEqual([
      ["cores_per_10k_overhead_pct", "pct"],
      ["cores_per_10k_added", "cores"],
      ["rss_overhead_pct", "pct"],
      ["rss_added_mib", "mib"],
      ["max_lost_spans", "spans"],
    ]);
    expect(budgetLabel("cpu_added_us")).toBe("CPU per request added");
    expect(BUDGET_LINES[5].field).toBe("Max CPU per request added (µs)");
    expect(budgetLabel("rss_added_mib", true)).toBe("Collector peak RSS added");
  });
});
