import { describe, expect, it } from "vitest";
import { percentileOption } from "./PercentilePlot";

describe("the percentile plot", () => {
  it("puts the percentile ticks at p50, p90, p99... on a log axis", () => {
    const option = percentileOption([{ label: "none", x: [2, 10, 100], y: [1, 2, 3] }], ["none"]);
    const x = option.xAxis as {
      type: string;
      axisLabel: { customValues: number[]; formatter: (x: number) => string };
    };
    expect(x.type).toBe("log");
    expect(x.axisLabel.customValues).toEqual([2, 10, 100, 1000, 10000]);
    expect(x.axisLabel.customValues.map(x.axisLabel.formatter)).toEqual([
      "50%",
      "90%",
      "99%",
      "99.9%",
      "99.99%",
    ]);
  });
});
