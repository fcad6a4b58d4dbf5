import { describe, expect, it } from "vitest";
import { niceStep, wholeTicks, xyOption, xyPoints, xyTooltip } from "./xy";

describe("lines over a numeric x", () => {
  it("gives each series its own [x, y] points", () => {
    expect(xyPoints({ label: "a", x: [1, 2], y: [10, 20] })).toEqual([
      [1, 10],
      [2, 20],
    ]);
  });

  it("widens a range to whole ticks, so no axis end reads 192.50323", () => {
    expect(niceStep(192.5)).toBe(50);
    expect(wholeTicks([0, 192.50323146984638])).toEqual([0, 200]);
    expect(wholeTicks([370, 3230])).toEqual([0, 4000]);
    expect(wholeTicks([0, 0.0805])).toEqual([0, 0.1]);
  });

  it("hovers the pointer's x, then each series' value there, unknown as a dash", () => {
    const text = xyTooltip(
      [
        { seriesName: "none", value: [2, 1.5] },
        { seriesName: "batch", value: [2, null] },
      ],
      (x) => `${x} s`,
      (y) => `${y}%`,
    );
    expect(text).toBe("2 s<br/>none: 1.5%<br/>batch: —");
  });

  it("keeps a fixed range as is and widens a computed one", () => {
    const option = xyOption({
      description: "d",
      x: { name: "x", min: 1, max: 3 },
      y: { name: "y", range: (_min, max) => [0, max * 1.15] },
      formatX: String,
      formatY: String,
      series: [],
    });
    const x = option.xAxis as { min: number; max: number };
    const y = option.yAxis as { max: (extent: { min: number; max: number }) => number };
    expect([x.min, x.max]).toEqual([1, 3]);
    expect(y.max({ min: 0, max: 167 })).toBe(200);
  });
});
