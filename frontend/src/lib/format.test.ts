import { describe, expect, it } from "vitest";
import {
  formatBytes,
  formatChangePercent,
  formatCores,
  formatDateTime,
  formatDuration,
  formatInterval,
  formatInUnit,
  formatMicros,
  formatNumber,
  formatPercent,
  formatRate,
  formatSignedInUnit,
  formatSignedRange,
  formatSpanRate,
  formatUtilization,
  parseApiDate,
  significant,
} from "./format";

describe("latency and numbers", () => {
  it("picks the unit that keeps three significant digits", () => {
    expect(formatMicros(590)).toBe("590 µs");
    expect(formatMicros(7.5)).toBe("7.50 µs");
    expect(formatMicros(1044)).toBe("1.04 ms");
    expect(formatMicros(37_919)).toBe("37.9 ms");
    expect(formatMicros(123_456)).toBe("123 ms");
    expect(formatMicros(2_345_678)).toBe("2.35 s");
  });

  it("renders missing values as a dash", () => {
    expect(formatMicros(null)).toBe("—");
    expect(formatMicros(undefined)).toBe("—");
    expect(formatMicros(Number.NaN)).toBe("—");
    expect(formatRate(null)).toBe("—");
    expect(formatBytes(null)).toBe("—");
    expect(formatPercent(null)).toBe("—");
  });

  it("formats rates, bytes, counts and utilisation", () => {
    expect(formatRate(8291.9)).toBe("8,292 req/s");
    expect(formatRate(12.34)).toBe("12.3 req/s");
    expect(formatBytes(32_755_712)).toBe("31.2 MiB");
    expect(formatBytes(512)).toBe("512 B");
    expect(formatNumber(1.1234)).toBe("1.12");
    expect(formatNumber(12345, 0)).toBe("12,345");
    expect(formatUtilization(0.6724)).toBe("67.2 %");
    expect(significant(0)).toBe("0");
    expect(significant(1234.5)).toBe("1,235");
  });
});

describe("percentages and intervals", () => {
  it("signs percentages with a real minus and fewer decimals for large ones", () => {
    expect(formatPercent(12.345)).toBe("+12 %");
    expect(formatPercent(4.04)).toBe("+4.0 %");
    expect(formatPercent(-4.04)).toBe("\u22124.0 %");
    expect(formatPercent(834.2)).toBe("+834 %");
    expect(formatPercent(1234.5)).toBe("+1,235 %");
    expect(formatPercent(0.01)).toBe("0.0 %");
  });

  it("formats an interval low to high whatever the order given", () => {
    expect(formatInterval([1.2, 5])).toBe("[+1.2 %, +5.0 %]");
    expect(formatInterval([5, -1.2])).toBe("[\u22121.2 %, +5.0 %]");
    expect(formatInterval(null)).toBe("—");
    expect(formatInterval([1, 2], (v) => `${v} µs`)).toBe("[1 µs, 2 µs]");
  });
});

describe("time", () => {
  it("formats durations", () => {
    expect(formatDuration(45)).toBe("45 s");
    expect(formatDuration(72)).toBe("1 min 12 s");
    expect(formatDuration(120)).toBe("2 min");
    expect(formatDuration(3900)).toBe("1 h 5 min");
    expect(formatDuration(null)).toBe("—");
  });

  it("reads the API's naive datetimes as UTC", () => {
    expect(parseApiDate("2026-11-21T13:36:38.393778")?.toISOString()).toBe(
      "2026-11-21T13:36:38.393Z",
    );
    expect(parseApiDate("2026-11-21T13:36:38+02:00")?.toISOString()).toBe(
      "2026-11-21T11:36:38.000Z",
    );
    expect(parseApiDate("not a date")).toBeNull();
    expect(formatDateTime(null)).toBe("—");
    expect(formatDateTime("2026-11-21T13:36:38", "en-GB")).toContain("2026");
  });
});

describe("changes in their unit", () => {
  it("signs an absolute change with a real minus, at a readable scale", () => {
    expect(formatSignedInUnit(1020, "us")).toBe("+1.02 ms");
    expect(formatSignedInUnit(-576.4, "req/s")).toBe("\u2212576 req/s");
    expect(formatSignedInUnit(3_250_000, "bytes")).toBe("+3.10 MiB");
    expect(formatSignedInUnit(0, "us")).toBe("0 µs");
    expect(formatSignedInUnit(null, "us")).toBe("—");
    expect(formatInUnit(38.4, "us")).toBe("38.4 µs");
  });

  it("writes a range's unit once when both ends share it", () => {
    expect(formatSignedRange(950, 1090, "us")).toBe("+950 µs to +1.09 ms");
    expect(formatSignedRange(1200, 1800, "us")).toBe("+1.20 to +1.80 ms");
    expect(formatSignedRange(-600, -550, "req/s")).toBe("\u2212600 to \u2212550 req/s");
    expect(formatSignedRange(null, 1, "us")).toBeNull();
  });

  it("writes a relative change as the API does", () => {
    expect(formatChangePercent(4.1)).toBe("+4.1%");
    expect(formatChangePercent(-97)).toBe("\u221297%");
  });
});

describe("a Collector's figures", () => {
  it("writes CPU in cores, in millicores below one core", () => {
    expect(formatCores(0.0078)).toBe("7.80 millicores");
    expect(formatCores(0.1003)).toBe("100 millicores");
    expect(formatCores(1.25)).toBe("1.25 cores");
    expect(formatCores(0)).toBe("0 cores");
    expect(formatCores(null)).toBe("—");
    expect(formatSpanRate(1144.4)).toBe("1,144 spans/s");
    expect(formatSpanRate(null)).toBe("—");
  });

  it("writes changes in cores and spans as the diagnostics give them", () => {
    expect(formatSignedInUnit(0.0012, "cores")).toBe("+1.20 millicores");
    expect(formatSignedInUnit(-2.5, "cores")).toBe("\u22122.50 cores");
    expect(formatSignedInUnit(3010, "spans")).toBe("+3,010 spans");
    expect(formatSignedInUnit(0, "spans")).toBe("0 spans");
    expect(formatInUnit(0.004, "cores")).toBe("4.00 millicores");
  });
});
