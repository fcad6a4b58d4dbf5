import { describe, expect, it } from "vitest";
import { sparklineShape } from "./Sparkline";

describe("sparklineShape", () => {
  it("scales the values into the box, the highest at the top", () => {
    const shape = sparklineShape([0, 5, 10], 100, 20);
    expect(shape?.path).toBe("M2 18 L50 10 L98 2");
    expect(shape?.last).toEqual([98, 2]);
  });

  it("breaks the line at an unknown value instead of drawing 0", () => {
    expect(sparklineShape([1, null, 3], 100, 20)?.path).toBe("M2 18 M98 2");
  });

  it("draws a flat line mid-height and nothing when no value is known", () => {
    expect(sparklineShape([4, 4], 100, 20)?.path).toBe("M2 10 L98 10");
    expect(sparklineShape([null, undefined])).toBeNull();
  });
});
