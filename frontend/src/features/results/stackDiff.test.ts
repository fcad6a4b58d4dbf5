import { describe, expect, it } from "vitest";
import type { FlameDiffNode } from "../../api/types";
import {
  DIFF_COLORS,
  diffColor,
  diffFrameLabel,
  formatDelta,
  largestChange,
  toDiffData,
} from "./stackDiff";

const frame = (
  name: string,
  baseline: number,
  candidate: number,
  children: FlameDiffNode[] = [],
): FlameDiffNode => ({
  name,
  value: candidate,
  baseline,
  candidate,
  delta: candidate - baseline,
  children,
});

// The baseline spends 100 µs per request in main; the candidate 200, half of it exporting.
const tree = frame("batch", 100, 200, [
  frame("thread main", 100, 100, [frame("handle", 60, 70), frame("parse", 40, 30)]),
  frame("thread BatchSpanProcessor", 0, 100, [frame("export", 0, 100)]),
]);

describe("diffColor", () => {
  it("is neutral when nothing changed", () => {
    expect(diffColor(0, 1)).toBe(DIFF_COLORS.same);
    expect(diffColor(5, 0)).toBe(DIFF_COLORS.same);
  });

  it("is full red for the largest growth and full blue for the largest drop", () => {
    expect(diffColor(10, 1)).toBe(DIFF_COLORS.more);
    expect(diffColor(-10, 1)).toBe(DIFF_COLORS.less);
  });

  it("deepens with the intensity and clamps it", () => {
    const [pale, deep] = [diffColor(1, 0.2), diffColor(1, 0.8)];
    const red = (hex: string) => Number.parseInt(hex.slice(1, 3), 16);
    const green = (hex: string) => Number.parseInt(hex.slice(3, 5), 16);
    // Towards #d62728: green falls faster than red.
    expect(green(deep)).toBeLessThan(green(pale));
    expect(red(deep)).toBeGreaterThan(green(deep));
    expect(diffColor(1, 3)).toBe(DIFF_COLORS.more);
    expect(diffColor(-1, Number.NaN)).toBe(DIFF_COLORS.same);
  });
});

describe("toDiffData", () => {
  it("scales each frame's intensity by the largest change below the root", () => {
    expect(largestChange(tree)).toBe(100);
    const data = toDiffData(tree);
    const [main, exporter] = data.children;
    expect(exporter.children[0]).toMatchObject({ name: "export", delta: 100, intensity: 1 });
    expect(main.children.map((c) => c.intensity)).toEqual([0.1, 0.1]);
    expect(main.intensity).toBe(0);
    // The root's own change (+100 µs) is the whole difference, not a frame's.
    expect(data.intensity).toBe(1);
  });

  it("has no colour when nothing changed", () => {
    const same = toDiffData(frame("a", 10, 10, [frame("b", 10, 10)]));
    expect(same.children[0].intensity).toBe(0);
  });
});

describe("labels", () => {
  it("say both sides and the change in the diff's unit", () => {
    const exportFrame = toDiffData(tree).children[1].children[0];
    expect(diffFrameLabel(exportFrame, "us_per_request")).toBe(
      "export · 0 µs → 100 µs per request (+100 µs)",
    );
    expect(formatDelta(-4.5, "share_pct")).toBe("−4.5 pp");
  });
});
