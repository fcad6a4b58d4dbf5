import { describe, expect, it } from "vitest";
import type { PipelineAggregates, RampPoint } from "../../api/types";
import { pipelineResults } from "../../test/pipelineFixtures";
import { rampOption } from "./RampChart";
import { coresRange, hasRamp, rampCurves, rateRange } from "./rampChart";

const step = (
  spans_per_s: number,
  achieved: number | null,
  cores: number | null,
  sustained: boolean | null = true,
  why: string | null = null,
): RampPoint => ({
  spans_per_s,
  achieved_spans_per_s: achieved,
  cpu_cores: cores,
  rss_max_bytes: 60_000_000,
  sustained,
  why,
});

/** The fixture's variants, with these ramps per round for the variants named. */
function withRamps(ramps: Record<string, (RampPoint[] | null)[]>): PipelineAggregates[] {
  return pipelineResults().configurations.map((c) => {
    const rounds = ramps[c.configuration];
    if (!rounds) return c;
    return {
      ...c,
      per_round: rounds.map((ramp, round) => ({ ...c.per_round[0], round, ramp })),
    };
  });
}

const order = ["passthrough", "batch-default", "loadbalancing", "tail-sampling"];

describe("the ramp's CPU against rate", () => {
  it("has nothing to plot without a ramp step (none asked, or results stored before)", () => {
    expect(hasRamp(pipelineResults().configurations)).toBe(false);
    expect(hasRamp(withRamps({ passthrough: [null, []] }))).toBe(false);
    // A step with no achieved rate or no CPU reading cannot be placed.
    expect(hasRamp(withRamps({ passthrough: [[step(1000, null, 0.01)]] }))).toBe(false);
    expect(rampCurves(withRamps({ passthrough: [[step(1000, 990, null)]] }), order)).toEqual([]);
  });

  it("plots every round's steps per variant at the achieved rate, the missed step apart", () => {
    const configurations = withRamps({
      "tail-sampling": [
        [
          step(1000, 998, 0.01),
          step(1500, 1497, 0.016),
          step(2250, 1800, 0.4, false, "the exporter queue grew to 900 of 1,000"),
        ],
      ],
      passthrough: [
        [step(1000, 1001, 0.008), step(1500, 1502, 0.011)],
        [step(1000, 999, 0.0085), step(1500, 1499, 0.012)],
      ],
    });
    expect(hasRamp(configurations)).toBe(true);
    const curves = rampCurves(configurations, order);
    // Spec order, variants without a ramp left out.
    expect(curves.map((c) => c.variant)).toEqual(["passthrough", "tail-sampling"]);
    expect(curves[0].kept).toEqual({
      label: "passthrough",
      x: [999, 1001, 1499, 1502],
      y: [0.0085, 0.008, 0.012, 0.011],
    });
    expect(curves[0].notKept.x).toEqual([]);
    expect(curves[1].kept).toEqual({
      label: "tail-sampling",
      x: [998, 1497],
      y: [0.01, 0.016],
    });
    expect(curves[1].notKept).toEqual({
      label: "tail-sampling: not kept up",
      x: [1800],
      y: [0.4],
    });
    expect(curves[1].why).toEqual(["the exporter queue grew to 900 of 1,000"]);
  });

  it("scales to the Collector's millicores from zero, the rates with a margin for the markers", () => {
    expect(coresRange(0.01, 0.04)).toEqual([0, 0.046]);
    expect(coresRange(0, 0)).toEqual([0, 0.01]);
    expect(rateRange(1000, 3000)).toEqual([900, 3100]);
    expect(rateRange(2000, 2000)).toEqual([1800, 2200]);
    expect(rateRange(10, 100)).toEqual([5.5, 104.5]);
  });
});

describe("the ramp chart", () => {
  it("draws a step not kept up with as a hollow marker apart from the variant's line", () => {
    const option = rampOption(
      [
        {
          variant: "passthrough",
          kept: { label: "passthrough", x: [500, 1000], y: [0.01, 0.02] },
          notKept: { label: "passthrough: not kept up", x: [3100], y: [0.07] },
          why: ["receiver"],
        },
      ],
      ["passthrough"],
    );
    const series = option.series as { type: string; name: string; itemStyle?: object }[];
    expect(series.map((s) => [s.type, s.name])).toEqual([
      ["line", "passthrough"],
      ["scatter", "passthrough: not kept up"],
    ]);
    expect(series[1].itemStyle).toMatchObject({ color: "#fff", borderWidth: 2 });
  });
});
