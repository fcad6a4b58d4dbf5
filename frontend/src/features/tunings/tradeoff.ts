// A tuning's trade-off: one point per candidate at the last rung it reached (what the CLI's
// table shows too), p99 overhead against spans kept, memory as a third cue, the Pareto front
// marked; and the figures as words, where a value the run did not measure (null) reads
// "unknown", never 0.

import type { TuningOutcome, TuningReport } from "../../api/types";
import type { EChartOption } from "../../lib/charts/echarts";
import { formatChangePercent, formatNumber } from "../../lib/format";

export const UNKNOWN = "unknown";

export interface TradeoffPoint {
  outcome: TuningOutcome;
  /** 1-based rung of its last measurement; null for a front setting no rung lists. */
  rung: number | null;
  experimentId: string | null;
  measureS: number | null;
  onFront: boolean;
  recommended: boolean;
}

const known = (value: number | null | undefined): value is number =>
  typeof value === "number" && Number.isFinite(value);

/** Every candidate once, at its last rung; by p99 overhead (unknown last), then spans kept. */
export function tradeoffPoints(report: TuningReport): TradeoffPoint[] {
  const latest = new Map<string, Omit<TradeoffPoint, "onFront" | "recommended">>();
  report.rungs.forEach((rung, index) => {
    for (const outcome of rung.outcomes) {
      latest.set(outcome.name, {
        outcome,
        rung: index + 1,
        experimentId: rung.experiment_id,
        measureS: rung.measure_s,
      });
    }
  });
  for (const outcome of report.front) {
    if (!latest.has(outcome.name)) {
      latest.set(outcome.name, { outcome, rung: null, experimentId: null, measureS: null });
    }
  }
  const front = new Set(report.front.map((outcome) => outcome.name));
  const recommended = report.choice?.recommended?.name ?? null;
  return [...latest.values()]
    .map((point) => ({
      ...point,
      onFront: front.has(point.outcome.name),
      recommended: point.outcome.name === recommended,
    }))
    .sort(byOverhead);
}

function byOverhead(a: TradeoffPoint, b: TradeoffPoint): number {
  const x = a.outcome.p99_overhead_pct;
  const y = b.outcome.p99_overhead_pct;
  if (known(x) !== known(y)) return known(x) ? -1 : 1;
  if (known(x) && known(y) && x !== y) return x - y;
  return (
    (b.outcome.kept ?? 0) - (a.outcome.kept ?? 0) || a.outcome.name.localeCompare(b.outcome.name)
  );
}

/** A change against no SDK: "+4.1%", "−2.0%"; "unknown" when not measured. */
export function formatOverhead(value: number | null | undefined): string {
  return known(value) ? formatChangePercent(value) : UNKNOWN;
}

/** The share of the service's spans that reached the store: "99.8%". */
export function formatKept(ratio: number | null | undefined): string {
  return known(ratio) ? `${(ratio * 100).toFixed(1)}%` : UNKNOWN;
}

/** Spans lost inside the SDK over a rung's rounds: "0", "1,204". */
export function formatLost(spans: number | null | undefined): string {
  return known(spans) ? formatNumber(spans, 0) : UNKNOWN;
}

/** The service's peak RSS with this setting: "48.2 MiB". */
export function formatRss(mib: number | null | undefined): string {
  return known(mib) ? `${formatNumber(mib, 1)} MiB` : UNKNOWN;
}

/** The points the chart can place: both coordinates measured. */
export function plotted(points: readonly TradeoffPoint[]): TradeoffPoint[] {
  return points.filter((p) => known(p.outcome.p99_overhead_pct) && known(p.outcome.kept));
}

/** The memory range the point sizes span; null when no plotted point has its memory. */
export function rssRange(points: readonly TradeoffPoint[]): [number, number] | null {
  const values = plotted(points)
    .map((p) => p.outcome.rss_mib)
    .filter(known);
  return values.length > 0 ? [Math.min(...values), Math.max(...values)] : null;
}

const SMALL = 9;
const LARGE = 28;

/** A point's diameter: from SMALL to LARGE px over the memory range; SMALL when unknown. */
export function pointSize(rss: number | null | undefined, range: [number, number] | null): number {
  if (!known(rss) || range === null) return SMALL;
  const [low, high] = range;
  if (high === low) return (SMALL + LARGE) / 2;
  return Math.round(SMALL + ((LARGE - SMALL) * (rss - low)) / (high - low));
}

const COLORS = { front: "#0072b2", other: "#6b7280", recommended: "#d55e00" };

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );
}

function tooltipOf(point: TradeoffPoint): string {
  const { outcome } = point;
  const where = point.rung === null ? "" : ` (rung ${point.rung}, ${point.measureS} s)`;
  return [
    `<strong>${escapeHtml(outcome.name)}</strong>${where}`,
    `p99 overhead ${formatOverhead(outcome.p99_overhead_pct)}`,
    `CPU overhead ${formatOverhead(outcome.cpu_overhead_pct)}`,
    `spans kept ${formatKept(outcome.kept)}, lost ${formatLost(outcome.lost_spans)}`,
    `memory ${formatRss(outcome.rss_mib)}`,
    point.onFront ? "on the Pareto front" : "",
    point.recommended ? "recommended" : "",
  ]
    .filter(Boolean)
    .join("<br/>");
}

function datum(point: TradeoffPoint, range: [number, number] | null, size?: number) {
  return {
    name: point.outcome.name,
    value: [point.outcome.p99_overhead_pct as number, (point.outcome.kept as number) * 100],
    symbolSize: size ?? pointSize(point.outcome.rss_mib, range),
  };
}

/** What a screen reader hears of the chart: the front, then where the table is. */
export function tradeoffDescription(points: readonly TradeoffPoint[]): string {
  const front = plotted(points).filter((p) => p.onFront);
  const onFront = front
    .map(
      (p) =>
        `${p.outcome.name} (p99 overhead ${formatOverhead(p.outcome.p99_overhead_pct)}, spans kept ${formatKept(p.outcome.kept)})`,
    )
    .join("; ");
  return (
    `Trade-off of ${points.length} candidate settings, p99 overhead against spans kept. ` +
    (front.length > 0
      ? `Pareto front: ${onFront}. `
      : "No plotted setting is on the Pareto front. ") +
    "The table below the chart has every figure."
  );
}

/**
 * The chart: hollow points off the front, filled points on it joined by a line (by overhead),
 * the recommended setting a diamond over its point; a point's size is its memory.
 */
export function tradeoffOption(points: readonly TradeoffPoint[]): EChartOption {
  const shown = plotted(points);
  const range = rssRange(points);
  const front = shown
    .filter((p) => p.onFront)
    .sort(
      (a, b) => (a.outcome.p99_overhead_pct as number) - (b.outcome.p99_overhead_pct as number),
    );
  const others = shown.filter((p) => !p.onFront);
  const recommended = shown.filter((p) => p.recommended);
  const tooltips = new Map(shown.map((p) => [p.outcome.name, tooltipOf(p)]));
  return {
    animation: false,
    aria: { enabled: true, label: { description: tradeoffDescription(points) } },
    textStyle: { fontFamily: "system-ui, -apple-system, 'Segoe UI', sans-serif" },
    legend: { top: 0, left: 0, itemGap: 14 },
    grid: { left: 56, right: 24, top: 56, bottom: 48 },
    tooltip: {
      trigger: "item",
      formatter: (params: unknown) => {
        const name = (params as { name?: string }).name ?? "";
        return tooltips.get(name) ?? escapeHtml(name);
      },
    },
    xAxis: {
      type: "value",
      name: "p99 overhead against no SDK (%)",
      nameLocation: "middle",
      nameGap: 30,
      scale: true,
      axisLabel: { formatter: (value: number) => `${value}%` },
    },
    yAxis: {
      type: "value",
      name: "Spans kept (%)",
      nameLocation: "end",
      scale: true,
      axisLabel: { formatter: (value: number) => `${value}%` },
    },
    series: [
      {
        type: "line",
        name: "Pareto front",
        symbol: "circle",
        itemStyle: { color: COLORS.front },
        lineStyle: { color: COLORS.front, width: 2 },
        z: 3,
        data: front.map((p) => datum(p, range)),
      },
      {
        type: "scatter",
        name: "Off the front",
        symbol: "emptyCircle",
        itemStyle: { color: COLORS.other, borderWidth: 2 },
        z: 2,
        data: others.map((p) => datum(p, range)),
      },
      {
        type: "scatter",
        name: "Recommended",
        symbol: "diamond",
        itemStyle: { color: COLORS.recommended, borderColor: "#fff", borderWidth: 1 },
        z: 4,
        data: recommended.map((p) => datum(p, range, 16)),
      },
    ],
  };
}
