import { describe, expect, it } from "vitest";
import { aggregates } from "../../test/fixtures";
import { comparisonRows, METRICS } from "./comparison";

describe("comparisonRows", () => {
  const rows = comparisonRows([aggregates("none", 1), aggregates("batch", 1.5)], "none");
  const row = (key: string) => rows.find((r) => r.metric.key === key);

  it("has the table's rows in order", () => {
    expect(METRICS.map((m) => m.label)).toEqual([
      "p50",
      "p90",
      "p99",
      "p99.9",
      "max",
      "Max throughput",
      "CPU per request",
      "RSS",
      "Context switches / request",
      "Dropped spans",
    ]);
  });

  it("computes each cell's difference against the baseline", () => {
    const p99 = row("p99");
    expect(p99?.cells.map((c) => c.text)).toEqual(["4.00 ms", "6.00 ms"]);
    expect(p99?.cells[0]).toMatchObject({ isBaseline: true, diffPercent: null, worse: null });
    expect(p99?.cells[1].diffPercent).toBeCloseTo(50);
    expect(p99?.cells[1].worse).toBe(true);
  });

  it("knows that less throughput is worse", () => {
    const throughput = row("max_throughput");
    expect(throughput?.cells[1].diffPercent).toBeCloseTo(-33.333, 2);
    expect(throughput?.cells[1].worse).toBe(true);
  });

  it("shows dropped spans as unknown until the diagnostics count them", () => {
    expect(row("dropped_spans")?.cells.map((c) => [c.text, c.diffPercent])).toEqual([
      ["unknown", null],
      ["unknown", null],
    ]);
  });

  it("has no differences when the baseline did not complete", () => {
    const alone = comparisonRows([aggregates("batch", 1)], "none");
    expect(alone[0].cells[0]).toMatchObject({ isBaseline: false, diffPercent: null });
  });
});
