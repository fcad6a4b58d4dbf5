// One metric's history as a chart (ECharts): the paired overhead of each check in commit order,
// its 95% interval as a band, the change points as vertical marks at the first commit after the
// change (labelled with the shift and its interval), the budget as a horizontal line. The
// values are the API's (GET /api/v1/history), never recomputed here; an unknown one is a gap.

import type { HistoryChangePoint, HistoryPoint, HistorySeries } from "../../api/types";
import {
  formatEstimate,
  formatMetricInterval,
  formatMetricValue,
  metricLabel,
  shortSha,
} from "../../components/history/historyMetrics";
import type { EChartOption } from "../../lib/charts/echarts";
import { formatDateTime } from "../../lib/format";

const COLORS = {
  estimate: "#0072b2",
  band: "rgba(0, 114, 178, 0.18)",
  change: "#d55e00",
  budget: "#b42318",
  fail: "#b42318",
};

const known = (value: number | null | undefined): value is number =>
  typeof value === "number" && Number.isFinite(value);

/** A point on the x axis: its commit's short sha, or its check's date when it has no commit. */
export function pointLabel(point: Pick<HistoryPoint, "commit" | "created_at">): string {
  return shortSha(point.commit) ?? formatDateTime(point.created_at);
}

/**
 * The band as two stacked series: its lower edge (drawn invisibly) and its width on top of it;
 * null where a point's interval is unknown, so the band has a gap there rather than a false 0.
 */
export function bandData(points: readonly HistoryPoint[]): {
  low: (number | null)[];
  width: (number | null)[];
} {
  const low: (number | null)[] = [];
  const width: (number | null)[] = [];
  for (const point of points) {
    const bounded = known(point.low) && known(point.high);
    low.push(bounded ? (point.low as number) : null);
    width.push(bounded ? (point.high as number) - (point.low as number) : null);
  }
  return { low, width };
}

/** The sentence of a change point: "+3.1% [+2.0%, +4.2%] from abc1234". */
export function changePointText(change: HistoryChangePoint, unit: string, at: string): string {
  const shift = formatMetricValue(change.shift, unit, true);
  const interval = formatMetricInterval(change.low, change.high, unit, true);
  return `${shift} ${interval} from ${at}`;
}

/**
 * Where each change point is marked: the first point after the change, with its label. Only
 * shifts large enough to matter are drawn; a real but tiny one is listed beside the chart.
 */
export function changePointMarks(series: Pick<HistorySeries, "points" | "change_points" | "unit">) {
  return series.change_points
    .filter((change) => change.material)
    .filter((change) => change.index >= 0 && change.index < series.points.length)
    .map((change) => {
      const at = change.commit
        ? (shortSha(change.commit) as string)
        : pointLabel(series.points[change.index]);
      return {
        name: "change point",
        xAxis: change.index,
        label: { formatter: changePointText(change, series.unit, at) },
      };
    });
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );
}

/** A point's hover: commit, date, verdict, the value with its interval, a link to its check. */
export function pointTooltip(point: HistoryPoint, unit: string): string {
  const commit = point.commit
    ? `commit <code>${escapeHtml(shortSha(point.commit) ?? "")}</code>`
    : "no commit";
  const where = [
    point.branch && `on ${escapeHtml(point.branch)}`,
    point.pull_request && `PR ${escapeHtml(point.pull_request)}`,
  ]
    .filter(Boolean)
    .join(", ");
  return [
    `<strong>${commit}</strong>${where ? ` ${where}` : ""}`,
    escapeHtml(formatDateTime(point.created_at)),
    `verdict ${escapeHtml(point.verdict ?? "unknown")}`,
    escapeHtml(formatEstimate(point, unit)),
    `<a href="/checks/${encodeURIComponent(point.check_id)}">Check ${escapeHtml(point.check_id.slice(0, 8))}</a>`,
  ].join("<br/>");
}

/** What a screen reader hears of the chart: the span, the change points, where the table is. */
export function historyDescription(series: HistorySeries): string {
  const label = metricLabel(series.metric);
  const marks = changePointMarks(series).map((mark) => mark.label.formatter);
  const last = series.points.at(-1);
  return [
    `${label} of ${series.points.length} check${series.points.length === 1 ? "" : "s"}, oldest first.`,
    last ? `Latest: ${formatEstimate(last, series.unit)} at ${pointLabel(last)}.` : "",
    marks.length > 0 ? `Change points: ${marks.join("; ")}.` : "No change point.",
    known(series.budget) ? `Budget ${formatMetricValue(series.budget, series.unit)}.` : "",
    "The table below the chart lists every point.",
  ]
    .filter(Boolean)
    .join(" ");
}

/**
 * Decimals that tell the y axis' ticks apart: about five ticks over the values' span, each
 * label with the digits of one tick's step (a span of a byte reads 1,117.2 / 1,117.4, not
 * five times "1.09 KiB").
 */
export function axisDecimals(points: readonly HistoryPoint[]): number {
  const values = points.flatMap((point) => [point.estimate, point.low, point.high]).filter(known);
  if (values.length === 0) return 1;
  const span = Math.max(...values) - Math.min(...values);
  if (span <= 0) return 2;
  return Math.min(4, Math.max(0, Math.ceil(-Math.log10(span / 5))));
}

/** An axis tick in the series' unit, with the decimals the axis needs. */
export function axisLabel(value: number, unit: string, decimals: number): string {
  // Cents at least for money; every tick of one axis with the same number of decimals.
  const places = unit === "usd" ? Math.max(decimals, 2) : decimals;
  const digits = Math.abs(value).toLocaleString("en-US", {
    minimumFractionDigits: places,
    maximumFractionDigits: places,
  });
  const sign = value > 0 ? "+" : value < 0 ? "\u2212" : "";
  if (unit === "pct") return `${sign}${digits}%`;
  if (unit === "bytes") return `${value < 0 ? "\u2212" : ""}${digits} B`;
  if (unit === "usd") return `${sign}$${digits}`;
  return `${value < 0 ? "\u2212" : ""}${digits} ${unit}`;
}

/** The chart: the estimate line over its interval band, change points and the budget marked. */
export function historyOption(series: HistorySeries): EChartOption {
  const { points, unit } = series;
  const band = bandData(points);
  const decimals = axisDecimals(points);
  const format = (value: unknown) =>
    typeof value === "number" ? axisLabel(value, unit, decimals) : "";
  const budget = known(series.budget)
    ? [
        {
          name: "budget",
          yAxis: series.budget,
          lineStyle: { color: COLORS.budget, type: "dashed" as const, width: 1.5 },
          label: {
            formatter: `budget ${formatMetricValue(series.budget, unit)}`,
            position: "insideEndTop" as const,
          },
        },
      ]
    : [];
  return {
    animation: false,
    aria: { enabled: true, label: { description: historyDescription(series) } },
    textStyle: { fontFamily: "system-ui, -apple-system, 'Segoe UI', sans-serif" },
    grid: { left: 64, right: 24, top: 40, bottom: 48 },
    tooltip: {
      trigger: "axis",
      // The tooltip holds the check's link: the pointer may enter it to click.
      enterable: true,
      formatter: (params: unknown) => {
        const first = Array.isArray(params) ? params[0] : params;
        const index = (first as { dataIndex?: number } | undefined)?.dataIndex;
        const point = index == null ? undefined : points[index];
        return point ? pointTooltip(point, unit) : "";
      },
    },
    xAxis: {
      type: "category",
      data: points.map(pointLabel),
      name: "commit",
      nameLocation: "middle",
      nameGap: 30,
      boundaryGap: false,
      axisLabel: { fontFamily: "ui-monospace, monospace" },
    },
    yAxis: {
      type: "value",
      scale: true,
      axisLabel: { formatter: format },
    },
    series: [
      {
        type: "line",
        name: "95% interval (low)",
        stack: "interval",
        // A band below 0 must stack on its lower edge too, whatever the signs.
        stackStrategy: "all",
        data: band.low,
        symbol: "none",
        lineStyle: { opacity: 0 },
        silent: true,
        tooltip: { show: false },
      },
      {
        type: "line",
        name: "95% interval",
        stack: "interval",
        stackStrategy: "all",
        data: band.width,
        symbol: "none",
        lineStyle: { opacity: 0 },
        areaStyle: { color: COLORS.band },
        silent: true,
        tooltip: { show: false },
      },
      {
        type: "line",
        name: "estimate",
        data: points.map((point) => ({
          value: known(point.estimate) ? point.estimate : null,
          itemStyle: { color: point.verdict === "fail" ? COLORS.fail : COLORS.estimate },
        })),
        symbol: "circle",
        symbolSize: 7,
        lineStyle: { color: COLORS.estimate, width: 2 },
        itemStyle: { color: COLORS.estimate },
        z: 3,
        markLine: {
          symbol: "none",
          silent: true,
          animation: false,
          lineStyle: { color: COLORS.change, type: "solid", width: 1.5 },
          label: { color: COLORS.change, position: "insideEndTop" },
          data: [...changePointMarks(series), ...budget],
        },
      },
    ],
  };
}
