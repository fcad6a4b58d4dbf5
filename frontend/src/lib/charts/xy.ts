// Lines over a numeric x (a round's samples over time, latency by percentile, CPU against span
// rate) as ECharts options: each series its own [x, y] points, one shared frame (grid, legend,
// axis names, a hover listing every series at the pointer's x) around them.

import type { LineSeriesOption, ScatterSeriesOption } from "echarts/charts";
import { MISSING } from "../format";
import type { EChartOption } from "./echarts";

export interface XYSeries {
  label: string;
  x: number[];
  y: number[];
}

/** A series' points as ECharts takes them. */
export function xyPoints(series: XYSeries): [number, number][] {
  return series.x.map((x, i) => [x, series.y[i]]);
}

/** One line, without markers: a configuration's curve in its colour. */
export function xyLine(series: XYSeries, color: string): LineSeriesOption {
  return {
    type: "line",
    name: series.label,
    data: xyPoints(series),
    color,
    lineStyle: { width: 2 },
    showSymbol: false,
    connectNulls: true,
  };
}

export interface XYAxis {
  name: string;
  /** The axis' range for the data's min and max, widened to whole ticks; ECharts' own when absent. */
  range?: (min: number, max: number) => [number, number];
  /** A fixed range, as is. */
  min?: number;
  max?: number;
  /** A logarithmic axis (base 10). */
  log?: boolean;
  /** Ticks only at these values (their labels from `tickLabel`), instead of ECharts' own. */
  ticks?: readonly number[];
  tickLabel?: (value: number) => string;
}

export interface XYChart {
  /** What a screen reader hears of the chart. */
  description: string;
  x: XYAxis;
  y: XYAxis;
  series: (LineSeriesOption | ScatterSeriesOption)[];
  /** The pointer's x and each series' y as the hover shows them. */
  formatX: (x: number) => string;
  formatY: (y: number) => string;
  /** Room left of the plot for the y axis' labels and name. */
  left?: number;
}

const known = (value: unknown): value is number =>
  typeof value === "number" && Number.isFinite(value);

interface Hovered {
  seriesName?: string;
  marker?: string;
  value?: unknown;
}

/** The hover: the pointer's x, then each series' value there (a line per series). */
export function xyTooltip(
  params: unknown,
  formatX: (x: number) => string,
  formatY: (y: number) => string,
): string {
  const hovered = (Array.isArray(params) ? params : [params]) as Hovered[];
  const xy = (h: Hovered) => (Array.isArray(h.value) ? h.value : []);
  const x = hovered.map((h) => xy(h)[0]).find(known);
  const lines = hovered.map((h) => {
    const y = xy(h)[1];
    return `${h.marker ?? ""}${h.seriesName ?? ""}: ${known(y) ? formatY(y) : MISSING}`;
  });
  return [known(x) ? formatX(x) : MISSING, ...lines].join("<br/>");
}

/** About a fifth of a span, rounded to 1, 2 or 5 times a power of ten: a tick's step. */
export function niceStep(span: number): number {
  const raw = span > 0 ? span / 5 : 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  const fraction = raw / power;
  return (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * power;
}

/**
 * A range widened outward to whole steps, so that its ends are ticks: ECharts labels an axis'
 * ends whatever they are, and "192.50323" would sit beside "180".
 */
export function wholeTicks([low, high]: [number, number]): [number, number] {
  const step = niceStep(high - low);
  const round = (value: number) => Number(value.toPrecision(12));
  return [round(Math.floor(low / step) * step), round(Math.ceil(high / step) * step)];
}

function bounds(spec: XYAxis) {
  const { range } = spec;
  if (!range) return { min: spec.min, max: spec.max };
  const of = (extent: { min: number; max: number }) =>
    wholeTicks(range(extent.min || 0, extent.max || 0));
  return {
    min: (extent: { min: number; max: number }) => of(extent)[0],
    max: (extent: { min: number; max: number }) => of(extent)[1],
  };
}

function axis(spec: XYAxis, nameGap: number) {
  const ticks = spec.ticks ? [...spec.ticks] : undefined;
  return {
    type: spec.log ? ("log" as const) : ("value" as const),
    ...(spec.log ? { logBase: 10 } : {}),
    name: spec.name,
    nameLocation: "middle" as const,
    nameGap,
    ...bounds(spec),
    axisTick: ticks ? { customValues: ticks } : {},
    axisLabel: {
      ...(ticks ? { customValues: ticks } : {}),
      ...(spec.tickLabel ? { formatter: spec.tickLabel } : {}),
    },
  };
}

export function xyOption(chart: XYChart): EChartOption {
  const left = chart.left ?? 72;
  return {
    animation: false,
    aria: { enabled: true, label: { description: chart.description } },
    textStyle: { fontFamily: "system-ui, -apple-system, 'Segoe UI', sans-serif" },
    legend: { top: 0, left: 0, itemGap: 14, type: "scroll" },
    grid: { left, right: 24, top: 40, bottom: 48 },
    tooltip: {
      trigger: "axis",
      // A class to find the hover by (the e2e test reads it).
      className: "chart-tooltip",
      formatter: (params: unknown) => xyTooltip(params, chart.formatX, chart.formatY),
    },
    xAxis: axis(chart.x, 30),
    yAxis: axis(chart.y, left - 16),
    series: chart.series,
  };
}
