// Chart data shaped from the results: the HDR-style percentile curves from each
// configuration's aggregates, and CPU utilisation and memory over time from each round's
// 250 ms samples.

import type { ConfigurationAggregates, ResourceSample, RoundRaw } from "../../api/types";
import type { XYSeries } from "../../lib/charts/xy";

/** Percentile ticks of the HDR plot's logarithmic axis. */
export const PERCENTILE_TICKS = [50, 90, 99, 99.9, 99.99] as const;

/** Where the ticks sit: 2, 10, 100, 1000, 10000 (rounded: 1/(1 − 0.99) is not exactly 100). */
export const PERCENTILE_TICK_XS = PERCENTILE_TICKS.map((p) => Math.round(percentileToX(p)));

/** A hovered percentile with the decimals that matter: p50.1, p99.54, p99.99. */
export function percentileHoverLabel(x: number | null): string {
  if (x == null || !(x >= 1)) return "";
  const percentile = xToPercentile(x);
  const decimals = Math.min(
    4,
    Math.max(1, Math.ceil(-Math.log10(Math.max(100 - percentile, 1e-6))) + 1),
  );
  return `p${Number(percentile.toFixed(decimals))}`;
}

/** The tick label of a plot x: "99.9%"; empty for a missing split. */
export function percentileTickLabel(x: number | null): string {
  return x == null || !(x >= 1) ? "" : `${percentileLabel(xToPercentile(x))}%`;
}

/** Plot x of a percentile: 1 / (1 − p/100), so 50 → 2, 90 → 10, 99 → 100, 99.9 → 1000. */
export function percentileToX(percentile: number): number {
  return 1 / (1 - percentile / 100);
}

export function xToPercentile(x: number): number {
  return 100 * (1 - 1 / x);
}

/** "99.9" for 99.90000000000001; at most four decimals, no trailing zeros. */
export function percentileLabel(percentile: number): string {
  return String(Number(percentile.toFixed(4)));
}

/**
 * One series per configuration with a curve: x = percentileToX(p), y = latency in ms.
 * The 100th percentile has no finite x and is dropped (the max is in the table).
 */
export function percentileSeries(configurations: readonly ConfigurationAggregates[]): XYSeries[] {
  return configurations.map((aggregates) => {
    const byX = new Map<number, number>();
    for (const [percentile, micros] of aggregates.percentile_curve ?? []) {
      if (!(percentile >= 0 && percentile < 100) || !Number.isFinite(micros)) continue;
      byX.set(percentileToX(percentile), micros / 1000);
    }
    const points = [...byX.entries()].sort((a, b) => a[0] - b[0]);
    return {
      label: aggregates.configuration,
      x: points.map(([x]) => x),
      y: points.map(([, y]) => y),
    };
  });
}

/** The x range of the percentile axis: from p0 to at least p99.99, further if the data goes on. */
export function percentileRange(series: readonly XYSeries[]): [number, number] {
  const top = Math.max(percentileToX(99.99), ...series.flatMap((s) => s.x));
  return [1, Math.min(top, percentileToX(99.9999))];
}

const SAMPLE_STEP_S = 0.25;

function cpuSeconds(sample: ResourceSample): number {
  return sample.cpu_user_s + sample.cpu_system_s;
}

/**
 * CPU utilisation (% of one core) between consecutive samples, plotted at the middle of each
 * interval: samples hold cumulative user + system seconds.
 */
export function utilizationPoints(samples: readonly ResourceSample[]): {
  x: number[];
  y: number[];
} {
  const x: number[] = [];
  const y: number[] = [];
  const sorted = [...samples].sort((a, b) => a.t - b.t);
  for (let i = 1; i < sorted.length; i += 1) {
    const previous = sorted[i - 1];
    const current = sorted[i];
    const dt = current.t - previous.t;
    if (!(dt > 0)) continue;
    const used = cpuSeconds(current) - cpuSeconds(previous);
    x.push(Number(((previous.t + current.t) / 2).toFixed(3)));
    y.push(Math.max(0, (used / dt) * 100));
  }
  return { x, y };
}

export type RoundChoice = "mean" | number;

/**
 * One series per configuration from its rounds' samples, turned into points by `points`: the
 * chosen round's, or the mean over its completed rounds (points binned to the 250 ms sampling
 * step, so rounds line up).
 */
export function sampleSeries(
  rounds: readonly RoundRaw[],
  configurations: readonly string[],
  choice: RoundChoice,
  points: (samples: readonly ResourceSample[]) => { x: number[]; y: number[] },
): XYSeries[] {
  return configurations.map((configuration) => {
    const own = rounds.filter((r) => r.configuration === configuration && r.samples?.length);
    if (choice !== "mean") {
      const round = own.find((r) => r.round_index === choice);
      const chosen = round ? points(round.samples ?? []) : null;
      return { label: configuration, x: chosen?.x ?? [], y: chosen?.y ?? [] };
    }
    const bins = new Map<number, number[]>();
    for (const round of own.filter((r) => r.status === "completed")) {
      const each = points(round.samples ?? []);
      each.x.forEach((t, i) => {
        const bin = Math.round(t / SAMPLE_STEP_S);
        bins.set(bin, [...(bins.get(bin) ?? []), each.y[i]]);
      });
    }
    const sorted = [...bins.entries()].sort((a, b) => a[0] - b[0]);
    return {
      label: configuration,
      x: sorted.map(([bin]) => Number((bin * SAMPLE_STEP_S).toFixed(3))),
      y: sorted.map(([, values]) => values.reduce((sum, v) => sum + v, 0) / values.length),
    };
  });
}

/** CPU utilisation per configuration (utilizationPoints): a round's, or the mean of them. */
export function cpuSeries(
  rounds: readonly RoundRaw[],
  configurations: readonly string[],
  choice: RoundChoice,
): XYSeries[] {
  return sampleSeries(rounds, configurations, choice, utilizationPoints);
}

const MIB = 1024 * 1024;

/** Resident memory (MiB) at each sample. */
export function memoryPoints(samples: readonly ResourceSample[]): { x: number[]; y: number[] } {
  const sorted = [...samples]
    .filter((s) => typeof s.rss_bytes === "number" && Number.isFinite(s.t))
    .sort((a, b) => a.t - b.t);
  return {
    x: sorted.map((s) => Number(s.t.toFixed(3))),
    y: sorted.map((s) => s.rss_bytes / MIB),
  };
}

/** Resident memory over time per configuration: a round's, or the mean of them. */
export function memorySeries(
  rounds: readonly RoundRaw[],
  configurations: readonly string[],
  choice: RoundChoice,
): XYSeries[] {
  return sampleSeries(rounds, configurations, choice, memoryPoints);
}

/** Round indexes that have samples, for the round picker. */
export function roundsWithSamples(rounds: readonly RoundRaw[]): number[] {
  return [...new Set(rounds.filter((r) => r.samples?.length).map((r) => r.round_index))].sort(
    (a, b) => a - b,
  );
}
