import { describe, expect, it } from "vitest";
import { diagnostics } from "../../test/fixtures";
import { envLines, evidenceRows, evidenceValue, humanize, ruleSetting } from "./recommendation";

describe("the recommendation as text", () => {
  it("spells the setting as variables to paste", () => {
    expect(envLines({ OTEL_BSP_MAX_QUEUE_SIZE: "8192", OTEL_TRACES_SAMPLER_ARG: "0.1" })).toEqual([
      "OTEL_BSP_MAX_QUEUE_SIZE=8192",
      "OTEL_TRACES_SAMPLER_ARG=0.1",
    ]);
    expect(envLines(null)).toEqual([]);
    expect(ruleSetting({ processor: "batch" })).toEqual({ processor: "batch", env: [] });
    expect(ruleSetting({ OTEL_BSP_MAX_QUEUE_SIZE: "8" })).toEqual({
      processor: null,
      env: ["OTEL_BSP_MAX_QUEUE_SIZE=8"],
    });
  });

  it("labels evidence without the unit suffixes its values carry", () => {
    expect(humanize("export_on_request_path_share")).toBe("Export on request path share");
    expect(humanize("cpu_overhead_pct")).toBe("CPU overhead");
    expect(humanize("span_rate_per_s")).toBe("Span rate");
    expect(humanize("schedule_delay_s")).toBe("Schedule delay");
  });

  it("formats each evidence value by what it is", () => {
    const rule = diagnostics().recommendation.rules[0];
    expect(evidenceRows(rule.evidence)).toEqual([
      { label: "Dropped spans", value: "4,004" },
      { label: "Span rate", value: "1,000 /s" },
      { label: "Schedule delay", value: "5 s" },
      { label: "Export on request path share", value: "65.1 %" },
      { label: "CPU overhead", value: "+87 % [+42 %, +132 %]" },
      { label: "Export duration", value: "not measured" },
    ]);
    expect(evidenceValue("budget_pct", 10)).toBe("10 %");
    expect(evidenceValue("note", "unknown (stacks not sampled)")).toBe(
      "unknown (stacks not sampled)",
    );
    expect(evidenceValue("flag", true)).toBe("yes");
    expect(evidenceValue("sizes", [1, 2])).toBe("[1,2]");
  });
});
