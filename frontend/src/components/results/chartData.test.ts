import { describe, expect, it } from "vitest";
import type { RoundRaw } from "../../api/types";
import { aggregates, round, sample } from "../../test/fixtures";
import {
  cpuSeries,
  memorySeries,
  PERCENTILE_TICK_XS,
  PERCENTILE_TICKS,
  percentileHoverLabel,
  percentileLabel,
  percentileRange,
  percentileSeries,
  percentileTickLabel,
  percentileToX,
  roundsWithSamples,
  utilizationPoints,
  xToPercentile,
} from "./chartData";

describe("the percentile axis", () => {
  it("maps percentiles to 1/(1-p) and back", () => {
    expect(PERCENTILE_TICKS.map(percentileToX).map((x) => Math.round(x))).toEqual([
      2, 10, 100, 1000, 10000,
    ]);
    expect(percentileLabel(xToPercentile(1000))).toBe("99.9");
    expect(percentileLabel(xToPercentile(10000))).toBe("99.99");
    expect(percentileToX(0)).toBe(1);
  });

  it("puts the ticks on exact powers and labels them as percentiles", () => {
    expect(PERCENTILE_TICK_XS).toEqual([2, 10, 100, 1000, 10000]);
    expect(PERCENTILE_TICK_XS.map(percentileTickLabel)).toEqual([
      "50%",
      "90%",
      "99%",
      "99.9%",
      "99.99%",
    ]);
    expect(percentileTickLabel(null)).toBe("");
  });

  it("labels a hovered percentile with the decimals that matter", () => {
    expect(percentileHoverLabel(percentileToX(99.5362))).toBe("p99.54");
    expect(percentileHoverLabel(percentileToX(50.123))).toBe("p50.1");
    expect(percentileHoverLabel(percentileToX(99.99))).toBe("p99.99");
    expect(percentileHoverLabel(percentileToX(99.9987))).toBe("p99.9987");
    expect(percentileHoverLabel(null)).toBe("");
  });
});

describe("percentileSeries", () => {
  it("shapes each configuration's curve into x = 1/(1-p), y = ms, dropping p100", () => {
    const [series] = percentileSeries([aggregates("none", 1)]);
    expect(series.label).toBe("none");
    expect(series.x.map((x) => Math.round(x))).toEqual([1, 2, 10, 100, 1000]);
    expect(series.y).toEqual([0.3, 0.6, 1, 4, 6]);
  });

  it("keeps x increasing and one point per percentile", () => {
    const [series] = percentileSeries([
      aggregates("a", 1, {
        percentile_curve: [
          [90, 1000],
          [50, 500],
          [90, 1100],
        ],
      }),
    ]);
    expect(series.x.map((x) => Math.round(x))).toEqual([2, 10]);
    expect(series.y).toEqual([0.5, 1.1]);
  });

  it("reaches at least p99.99 on the axis", () => {
    const series = percentileSeries([aggregates("none", 1)]);
    const [min, max] = percentileRange(series);
    expect(min).toBe(1);
    expect(Math.round(max)).toBe(10000);
    const longer = [{ label: "x", x: [1, 50_000], y: [1, 2] }];
    expect(percentileRange(longer)[1]).toBe(50_000);
  });
});

describe("CPU over time", () => {
  it("computes utilisation between cumulative samples at interval midpoints", () => {
    const points = utilizationPoints([sample(0, 1), sample(0.25, 1.05), sample(0.5, 1.15)]);
    expect(points.x).toEqual([0.125, 0.375]);
    expect(points.y[0]).toBeCloseTo(20);
    expect(points.y[1]).toBeCloseTo(40);
  });

  it("skips intervals without time and never goes below zero", () => {
    const points = utilizationPoints([
      sample(0.5, 2),
      sample(0, 1),
      sample(0.5, 1.5),
      sample(1, 1.4),
    ]);
    expect(points.x).toEqual([0.25, 0.75]);
    expect(points.y[1]).toBe(0);
  });

  it("plots one round, or the mean of completed rounds binned to 250 ms", () => {
    const rounds = [
      round("none", 0, { samples: [sample(0, 0), sample(0.25, 0.05)] as never }),
      round("none", 1, { samples: [sample(0, 0), sample(0.25, 0.15)] as never }),
      round("none", 2, { status: "failed", samples: [sample(0, 0), sample(0.25, 1)] as never }),
      round("batch", 0, { samples: [sample(0, 0), sample(0.25, 0.1)] as never }),
    ];
    const mean = cpuSeries(rounds, ["none", "batch", "missing"], "mean");
    expect(mean.map((s) => s.label)).toEqual(["none", "batch", "missing"]);
    expect(mean[0].x).toEqual([0.25]);
    expect(mean[0].y[0]).toBeCloseTo(40);
    expect(mean[2]).toEqual({ label: "missing", x: [], y: [] });
    const second = cpuSeries(rounds, ["none"], 1);
    expect(second[0].x).toEqual([0.125]);
    expect(second[0].y[0]).toBeCloseTo(60);
    expect(roundsWithSamples(rounds)).toEqual([0, 1, 2]);
  });
});

describe("memory over time", () => {
  it("plots each sample's RSS in MiB, a round's or the mean over completed rounds", () => {
    const mib = 1024 * 1024;
    const at = (t: number, rss: number) => ({ ...sample(t, 0), rss_bytes: rss * mib });
    const rounds = [
      round("lab", 0, { samples: [at(0, 50), at(0.25, 52)] as unknown as RoundRaw["samples"] }),
      round("lab", 1, { samples: [at(0.01, 54), at(0.26, 56)] as unknown as RoundRaw["samples"] }),
      round("lab", 2, {
        status: "failed",
        samples: [at(0, 500)] as unknown as RoundRaw["samples"],
      }),
    ];
    expect(memorySeries(rounds, ["lab"], "mean")).toEqual([
      { label: "lab", x: [0, 0.25], y: [52, 54] },
    ]);
    expect(memorySeries(rounds, ["lab"], 1)).toEqual([
      { label: "lab", x: [0.01, 0.26], y: [54, 56] },
    ]);
    expect(memorySeries(rounds, ["missing"], "mean")).toEqual([{ label: "missing", x: [], y: [] }]);
  });
});
