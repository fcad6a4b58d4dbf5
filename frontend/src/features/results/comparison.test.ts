import { describe, expect, it } from "vitest";
import { aggregates, diagnostics } from "../../test/fixtures";
import { comparisonRows, METRICS } from "./comparison";

describe("comparisonRows", () => {
  const configurations = [aggregates("none", 1), aggregates("batch-default", 1.5)];
  const rows = comparisonRows(configurations, "none", diagnostics());
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

  it("takes each cell's overhead and interval from the diagnostics", () => {
    const p50 = row("p50");
    expect(p50?.cells.map((c) => c.text)).toEqual(["600 µs", "900 µs"]);
    expect(p50?.cells[0]).toMatchObject({ isBaseline: true, overhead: null, worse: null });
    expect(p50?.cells[1].overhead).toMatchObject({ estimate: 50, low: 41.5, high: 58.25 });
    expect(p50?.cells[1]).toMatchObject({ significant: true, worse: true });
    expect(row("p99")?.cells[1]).toMatchObject({ significant: false, worse: true });
  });

  it("uses the backend's sign: positive overhead is worse, even for throughput", () => {
    // The measured throughput dropped by a third; the backend reports that as +33 %.
    expect(row("max_throughput")?.cells[1].overhead?.estimate).toBe(33.3);
    expect(row("max_throughput")?.cells[1].worse).toBe(true);
    expect(row("rss")?.cells[1]).toMatchObject({ worse: false, significant: true });
  });

  it("shows the noise floor for metrics the diagnostics have it for", () => {
    expect(row("p50")?.noiseFloor).toMatchObject({ low: -6.4, high: 6.4 });
    expect(row("max")?.noiseFloor).toBeNull();
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
