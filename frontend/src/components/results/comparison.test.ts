import { describe, expect, it } from "vitest";
import { aggregates, diagnostics } from "../../test/fixtures";
import { comparisonRows, METRICS } from "./comparison";

describe("comparisonRows", () => {
  const configurations = [aggregates("none", 1), aggregates("batch-default", 1.5)];
  const rows = comparisonRows(configurations, "none", diagnostics(), undefined, {
    "batch-default": "load generator",
    none: null,
  });
  const row = (key: string) => rows.find((r) => r.metric.key === key);

  it("has the table's rows in order", () => {
    expect(METRICS.map((m) => m.label)).toEqual([
      "p50",
      "p90",
      "p99",
      "p99.9",
      "p99.99",
      "max",
      "Max throughput",
      "CPU per request",
      "RSS",
      "Context switches / request",
      "Dropped spans",
    ]);
  });

  it("takes each cell's change from the diagnostics", () => {
    const p50 = row("p50");
    expect(p50?.cells.map((c) => c.text)).toEqual(["600 µs", "900 µs"]);
    expect(p50?.cells[0]).toMatchObject({ isBaseline: true, overhead: null, direction: null });
    expect(p50?.cells[1].overhead?.relative_pct).toMatchObject({
      estimate: 50,
      low: 41.5,
      high: 58.25,
    });
    expect(p50?.cells[1]).toMatchObject({ significant: true, direction: "worse" });
    expect(row("p99")?.cells[1]).toMatchObject({ significant: false, direction: "unchanged" });
  });

  it("keeps the API's direction: a throughput drop is negative and worse", () => {
    const throughput = row("max_throughput")?.cells[1];
    expect(throughput?.overhead?.relative_pct.estimate).toBe(-97);
    expect(throughput?.direction).toBe("worse");
    expect(row("rss")?.cells[1]).toMatchObject({ direction: "better", significant: true });
  });

  it("says what limited the max throughput, on that row only", () => {
    expect(row("max_throughput")?.cells.map((c) => c.limitedBy)).toEqual([null, "load generator"]);
    expect(row("p50")?.cells[1].limitedBy).toBeNull();
  });

  it("shows the noise floor for metrics the diagnostics have it for", () => {
    expect(row("p50")?.noiseFloor).toMatchObject({ relative_pct: 6.4, absolute: 38.4, pairs: 5 });
    expect(row("max")?.noiseFloor).toBeNull();
    expect(row("max_throughput")?.noiseFloor?.relative_pct).toBeNull();
    expect(row("ctx_per_request")?.cells[1].overhead).toBeNull();
  });

  it("reads dropped spans from the diagnostics, unknown when the SDK has no counter", () => {
    expect(row("dropped_spans")?.cells.map((c) => c.text)).toEqual(["0", "unknown"]);
  });

  it("shows the values alone until the diagnostics arrive", () => {
    const alone = comparisonRows(configurations, "none", undefined);
    expect(alone.every((r) => r.cells.every((c) => c.overhead === null))).toBe(true);
    expect(alone.find((r) => r.metric.key === "p99")?.cells.map((c) => c.text)).toEqual([
      "4.00 ms",
      "6.00 ms",
    ]);
    expect(alone.find((r) => r.metric.key === "dropped_spans")?.cells[0].text).toBe("unknown");
  });
});
