import { describe, expect, it } from "vitest";
import {
  formatEstimate,
  formatMetricInterval,
  formatMetricValue,
  historyPath,
  shortSha,
} from "./historyMetrics";

describe("formatMetricValue", () => {
  it("reads each unit: a signed %, bytes, a signed $/month; unknown, never 0", () => {
    expect(formatMetricValue(4.2, "pct")).toBe("+4.2%");
    expect(formatMetricValue(2048, "bytes")).toBe("2.00 KiB");
    expect(formatMetricValue(-2048, "bytes", true)).toBe("\u22122.00 KiB");
    expect(formatMetricValue(12.5, "usd")).toBe("+$12.50");
    expect(formatMetricValue(-0.5, "usd")).toBe("\u2212$0.50");
    expect(formatMetricValue(null, "pct")).toBe("unknown");
  });
});

describe("formatEstimate", () => {
  it("gives the interval when both ends are known", () => {
    expect(formatEstimate({ estimate: 3, low: 1, high: 5 }, "pct")).toBe("+3.0% [+1.0%, +5.0%]");
    expect(formatEstimate({ estimate: 3, low: null, high: 5 }, "pct")).toBe("+3.0%");
    expect(formatMetricInterval(null, 1, "pct")).toBe("no interval");
  });
});

describe("historyPath", () => {
  it("leaves blank filters out", () => {
    expect(historyPath({ service: "go", configuration: "batch-default", branch: null })).toBe(
      "/history?service=go&configuration=batch-default",
    );
    expect(
      historyPath({ service: "go", configuration: "a b", branch: "feat/x", machine: "m1" }),
    ).toBe("/history?service=go&configuration=a+b&branch=feat%2Fx&machine=m1");
    expect(historyPath({})).toBe("/history");
    expect(shortSha("0123456789abcdef")).toBe("0123456");
  });
});
