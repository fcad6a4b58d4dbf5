import { describe, expect, it } from "vitest";
import { change, diagnostics, interval, noiseFloor } from "../../test/fixtures";
import {
  changeLine,
  describeChange,
  describeNoiseFloor,
  formatP,
  intervalSummary,
  isInterval,
} from "./overhead";

const overhead = diagnostics().overhead["batch-default"];

describe("describeChange", () => {
  it("reads a latency change with its absolute delta beside the percentage, in the API's words", () => {
    const p50 = change("p50", [1020, 950, 1090], [4.1, 3.8, 4.4], {
      significant: true,
      direction: "worse",
      p_value: 0.0004,
      p_adjusted: 0.0028,
    });
    expect(changeLine(p50)).toBe("+1.02 ms p50 (+950 µs to +1.09 ms) · +4.1% · worse");
    expect(describeChange(p50)).toMatchObject({
      absolute: "+1.02 ms",
      absoluteRange: "+950 µs to +1.09 ms",
      relative: "+4.1%",
      relativeRange: "+3.8% to +4.4%",
      direction: "worse",
      words: "worse",
      significant: true,
      short: "+1.02 ms (+950 µs to +1.09 ms) · +4.1% · worse",
      significanceShort: "Holm p = 0.003 · 5 pairs",
    });
    expect(describeChange(p50)?.significance).toBe(
      "significant: p = 0.003 after Holm over the configuration's metrics (< 0.001 alone), 5 paired rounds",
    );
  });

  it("writes the unit once when both ends of the interval share it", () => {
    const p99 = change("p99", [1500, 1200, 1800], [10, 8, 12]);
    expect(describeChange(p99)?.absoluteRange).toBe("+1.20 to +1.80 ms");
  });

  it("reads a throughput drop as negative and worse: the direction is the API's, not the sign's", () => {
    const text = describeChange(overhead.max_throughput_rps);
    expect(text?.line).toBe(
      "\u2212576 req/s max throughput (\u2212600 to \u2212550 req/s) · \u221297% · worse",
    );
    expect(text?.direction).toBe("worse");
    // A smaller RSS is better although its change is negative too.
    expect(describeChange(overhead.rss_max_bytes)).toMatchObject({
      absolute: "\u22123.84 MiB",
      relative: "\u221212%",
      direction: "better",
      words: "better",
    });
  });

  it("says 'no significant change' and keeps the API's note when Holm does not retain it", () => {
    const p99 = change("p99", [2000, 100, 3900], [50, 2, 98], {
      p_value: 0.03,
      p_adjusted: 0.21,
      note: "p = 0.030 alone, not significant after Holm's correction over 7 metrics",
    });
    const text = describeChange(p99);
    expect(text?.words).toBe("no significant change");
    expect(text?.short).toBe("+2.00 ms (+100 µs to +3.90 ms) · +50% · no significant change");
    expect(text?.note).toContain("not significant after Holm");
    expect(text?.significance).toMatch(/^not significant: p = 0.210 after Holm/);
  });

  it("never invents an interval, a relative change or a number", () => {
    const cpu = describeChange(overhead.cpu_per_request_us);
    expect(cpu).toMatchObject({
      absolute: "+250 µs",
      absoluteRange: null,
      relative: "+50%",
      note: "an interval needs at least 2 paired rounds",
      significanceShort: "1 pair, no test",
    });
    const zeroBaseline = change("rss_max_bytes", [1024, 512, 1536], [null], {
      note: "no relative change: a baseline or candidate value is zero",
    });
    expect(describeChange(zeroBaseline)?.short).toBe(
      "+1.00 KiB (+512 B to +1.50 KiB) · no significant change",
    );
    const unknown = change("p50", [null], [null], {
      pairs: 0,
      direction: "unknown",
      p_value: null,
      p_adjusted: null,
      note: "not measured in any round that both the baseline and this configuration completed",
    });
    expect(describeChange(unknown)).toMatchObject({
      absolute: "—",
      short: "unknown",
      line: "p50: unknown",
      words: "unknown",
    });
    expect(describeChange(null)).toBeNull();
    expect(changeLine(undefined)).toBe("—");
  });
});

describe("describeNoiseFloor", () => {
  it("reads ± relative and absolute with its pairs", () => {
    expect(describeNoiseFloor(noiseFloor("p50", 6.4, 38.4))).toEqual({
      known: true,
      relative: "±6.4%",
      absolute: "±38.4 µs",
      pairs: "at 5 paired rounds",
      line: "±6.4% (±38.4 µs) at 5 paired rounds",
      note: null,
    });
    expect(describeNoiseFloor(noiseFloor("rss_max_bytes", 0.9, 301990))?.absolute).toBe("±295 KiB");
  });

  it("says when the floor is unknown, with the API's note", () => {
    const text = describeNoiseFloor(noiseFloor("max_throughput_rps", null, null));
    expect(text).toMatchObject({ known: false, relative: null, absolute: null });
    expect(text?.line).toMatch(/^unknown \(needs a second configuration/);
    expect(describeNoiseFloor(undefined)).toBeNull();
  });
});

describe("evidence intervals", () => {
  it("tells an interval from other evidence and reads it", () => {
    expect(isInterval(interval(1, 0, 2))).toBe(true);
    expect(isInterval({ estimate: 1 })).toBe(false);
    expect(isInterval(3)).toBe(false);
    expect(isInterval(null)).toBe(false);
    expect(intervalSummary(interval(86.84, 41.86, 131.82))).toBe("+87 % [+42 %, +132 %]");
    expect(intervalSummary(interval(5))).toBe("+5.0 %");
    expect(intervalSummary(interval(null))).toBe("—");
    expect(formatP(0.00001)).toBe("< 0.001");
  });
});
