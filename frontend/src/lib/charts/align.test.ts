import { describe, expect, it } from "vitest";
import { alignSeries } from "./align";

describe("alignSeries", () => {
  it("joins series on the union of their x values with null gaps", () => {
    const aligned = alignSeries([
      { label: "a", x: [1, 3], y: [10, 30] },
      { label: "b", x: [2, 3, 4], y: [20, 31, 40] },
    ]);
    expect(aligned).toEqual([
      [1, 2, 3, 4],
      [10, null, 30, null],
      [null, 20, 31, 40],
    ]);
  });

  it("handles no series and empty series", () => {
    expect(alignSeries([])).toEqual([[]]);
    expect(alignSeries([{ label: "a", x: [], y: [] }])).toEqual([[], []]);
  });
});
