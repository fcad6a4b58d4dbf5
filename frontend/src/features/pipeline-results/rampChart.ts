// CPU against span rate along the ramps (the aggregates' `per_round[].ramp`, engine/aggregate.py
// `_curve`): per variant, every step of every round at the rate telemetrygen achieved and the
// lab Collector's cores there. The steps kept up with make the variant's line; the step it did
// not keep up with (the ramp's last) is marked apart, never on the line.

import type { PipelineAggregates, RampPoint } from "../../api/types";
import type { XYSeries } from "../../lib/charts/xy";

export interface RampCurve {
  variant: string;
  /** Steps kept up with (or not judged), by achieved rate. */
  kept: XYSeries;
  /** Steps not kept up with, by achieved rate. */
  notKept: XYSeries;
  /** Why each step of `notKept` was not kept up with (same order). */
  why: (string | null)[];
}

function finite(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** Every ramp step of a variant's rounds (none for a round stored without `ramp`). */
export function rampPoints(aggregates: Pick<PipelineAggregates, "per_round">): RampPoint[] {
  return (aggregates.per_round ?? []).flatMap((round) => round.ramp ?? []);
}

/** Whether any variant has a ramp step to plot. */
export function hasRamp(configurations: readonly Pick<PipelineAggregates, "per_round">[]): boolean {
  return configurations.some((c) =>
    rampPoints(c).some((p) => finite(p.achieved_spans_per_s) && finite(p.cpu_cores)),
  );
}

function series(label: string, points: RampPoint[]): XYSeries {
  return {
    label,
    x: points.map((p) => p.achieved_spans_per_s as number),
    y: points.map((p) => p.cpu_cores as number),
  };
}

/**
 * One curve per variant with a ramp, variants in spec order: x = achieved spans/s, y = cores.
 * A step without an achieved rate or a CPU reading cannot be placed and is left out.
 */
export function rampCurves(
  configurations: readonly PipelineAggregates[],
  order: readonly string[],
): RampCurve[] {
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  return [...configurations]
    .sort((a, b) => rank(a.configuration) - rank(b.configuration))
    .map((aggregates) => {
      const points = rampPoints(aggregates)
        .filter((p) => finite(p.achieved_spans_per_s) && finite(p.cpu_cores))
        .sort((a, b) => (a.achieved_spans_per_s as number) - (b.achieved_spans_per_s as number));
      const notKept = points.filter((p) => p.sustained === false);
      return {
        variant: aggregates.configuration,
        kept: series(
          aggregates.configuration,
          points.filter((p) => p.sustained !== false),
        ),
        notKept: series(`${aggregates.configuration}: not kept up`, notKept),
        why: notKept.map((p) => p.why ?? null),
      };
    })
    .filter((curve) => curve.kept.x.length + curve.notKept.x.length > 0);
}

/** From 0 cores to a little above the highest step (a Collector's ramp is often millicores). */
export function coresRange(_min: number, max: number): [number, number] {
  return [0, max > 0 ? max * 1.15 : 0.01];
}

/** The rates with a margin, so the first and last markers are drawn whole. */
export function rateRange(min: number, max: number): [number, number] {
  const pad = max > min ? (max - min) * 0.05 : Math.max(Math.abs(max) * 0.1, 1);
  return [Math.max(0, min - pad), max + pad];
}
