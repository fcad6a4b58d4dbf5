import { describe, expect, it } from "vitest";
import {
  budgetLabel,
  budgetLimit,
  budgetMeasure,
  budgetSummary,
  junitUrl,
  requestNames,
} from "./commands";

// A check's request and commands are the backend's (backend/tests/app/test_check_commands.py).

describe("requestNames", () => {
  it("recovers the request's names from the check's experiment name", () => {
    expect(requestNames("check: batch-default vs none")).toEqual({
      candidate: "batch-default",
      baseline: "none",
    });
    expect(requestNames("my experiment")).toEqual({ candidate: null, baseline: null });
    expect(junitUrl("a b")).toBe("/api/v1/checks/a%20b?format=junit");
  });
});

describe("budget text", () => {
  it("reads the budget's lines", () => {
    expect(
      budgetSummary({ p99_overhead_pct: 15, cpu_overhead_pct: null, max_dropped_spans: 0 }),
    ).toEqual(["p99 latency overhead ≤ 15 %", "Spans dropped in the SDK ≤ 0 spans"]);
    expect(budgetLimit("cpu_overhead_pct", -2.5)).toBe("≤ \u22122.5 %");
  });

  it("reads the absolute lines in their units, in the backend's order", () => {
    expect(
      budgetSummary({ cpu_added_us: 40, p50_added_ms: 0.5, p50_overhead_pct: 5, p99_added_ms: 2 }),
    ).toEqual([
      "p50 latency overhead ≤ 5.0 %",
      "p50 latency added ≤ 0.5 ms",
      "p99 latency added ≤ 2 ms",
      "CPU per request added ≤ 40 µs",
    ]);
    expect(budgetLimit("isolation", 0)).toBe("no flagged round");
  });

  it("reads the cost lines as the candidate's own bytes and dollars", () => {
    expect(budgetSummary({ max_bytes_per_request: 2500, max_usd_per_month: 40 })).toEqual([
      "OTLP bytes per request ≤ 2,500 B",
      "Cost per month ≤ $40.00",
    ]);
    expect(budgetMeasure("max_bytes_per_request", 1998.4)).toBe("1,998 B");
    expect(budgetMeasure("max_usd_per_month", 12.5)).toBe("$12.50");
  });
});

describe("a pipeline check's budget text", () => {
  const budget = {
    cores_per_10k_overhead_pct: 30,
    cores_per_10k_added: null,
    rss_overhead_pct: 20,
    rss_added_mib: 64,
    max_lost_spans: 0,
  };

  it("reads the pipeline budget lines in their units", () => {
    expect(budgetSummary(budget)).toEqual([
      "Collector cores per 10k spans/s overhead ≤ 30 %",
      "Collector peak RSS overhead ≤ 20 %",
      "Collector peak RSS added ≤ 64 MiB",
      "Spans lost in the pipeline ≤ 0 spans",
    ]);
    expect(budgetLimit("cores_per_10k_added", 0.005)).toBe("≤ 5.00 millicores");
    expect(budgetMeasure("cores_per_10k_added", 0.0012)).toBe("+1.20 millicores");
    expect(budgetMeasure("rss_added_mib", 2.5)).toBe("+2.50 MiB");
    expect(budgetMeasure("rss_added_mib", -0.5)).toBe("\u2212512 KiB");
    expect(budgetMeasure("rss_overhead_pct", 0.19)).toBe("+0.2 %");
    expect(budgetMeasure("max_lost_spans", 1200)).toBe("1,200 spans");
    expect(budgetLabel("isolation", true)).toBe("Isolation of the lab Collector's cores");
    expect(budgetLabel("isolation")).toBe("Isolation of the service's cores");
  });
});
