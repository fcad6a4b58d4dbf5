import { describe, expect, it } from "vitest";
import { interval } from "../../test/fixtures";
import { describeOverhead, isInterval, overheadSummary } from "./overhead";

describe("describeOverhead", () => {
  it("reads an estimate with its 95% interval", () => {
    expect(describeOverhead(interval(39.81, 31.09, 48.53))).toEqual({
      estimate: "+40 %",
      range: "[+31 %, +49 %]",
      note: null,
      significant: true,
      direction: "worse",
    });
  });

  it("keeps a negative overhead better and an interval across zero not significant", () => {
    const text = describeOverhead(interval(-4.04, -9.5, 1.2));
    expect(text).toMatchObject({
      estimate: "\u22124.0 %",
      range: "[\u22129.5 %, +1.2 %]",
      significant: false,
      direction: "better",
    });
  });

  it("says why there is no interval, and never invents one", () => {
    expect(
      describeOverhead(
        interval(194.1, null, null, { note: "an interval needs at least 2 rounds" }),
      ),
    ).toMatchObject({
      estimate: "+194 %",
      range: null,
      note: "an interval needs at least 2 rounds",
    });
    expect(describeOverhead(interval(12, null, null))).toMatchObject({ note: "no interval" });
    expect(
      describeOverhead(interval(null, null, null, { note: "not measured in a completed round" })),
    ).toMatchObject({ estimate: "—", direction: null, note: "not measured in a completed round" });
    expect(describeOverhead(interval(null))).toMatchObject({ note: "not measured" });
    expect(describeOverhead(null)).toBeNull();
  });

  it("has no direction at exactly zero (the noise floor's estimate)", () => {
    expect(describeOverhead(interval(0, -6.36, 6.36))?.direction).toBeNull();
  });
});

describe("overheadSummary", () => {
  it("puts estimate, interval and significance on one line", () => {
    expect(overheadSummary(interval(86.84, 41.86, 131.82))).toBe(
      "+87 % [+42 %, +132 %], significant",
    );
    expect(overheadSummary(interval(5, null, null, { note: "needs 2 rounds" }))).toBe(
      "+5.0 % (needs 2 rounds)",
    );
    expect(overheadSummary(undefined)).toBe("—");
  });

  it("tells an Interval from other evidence", () => {
    expect(isInterval(interval(1, 0, 2))).toBe(true);
    expect(isInterval({ estimate: 1 })).toBe(false);
    expect(isInterval(3)).toBe(false);
    expect(isInterval(null)).toBe(false);
  });
});
