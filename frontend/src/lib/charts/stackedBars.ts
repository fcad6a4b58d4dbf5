// One horizontal stacked bar per row (a configuration), one series per part: what the results
// page's "where export runs" chart and the cost chart both draw.

import type { BarSeriesOption } from "echarts/charts";
import type { EChartOption } from "./echarts";

export interface StackPart {
  label: string;
  color: string;
  /** One value per row; null leaves the part out of that row's bar. */
  values: (number | null)[];
}

export interface StackedBars {
  rows: string[];
  parts: StackPart[];
  stack: string;
  xAxis: EChartOption["xAxis"];
  valueFormatter: (value: unknown) => string;
  /** A label inside each part (e.g. its percentage); none when absent. */
  partLabel?: BarSeriesOption["label"];
  /** Room above the plot for the legend, and right of it for the last axis label. */
  top?: number;
  right?: number;
}

export function stackedBarsOption(chart: StackedBars): EChartOption {
  return {
    animation: false,
    aria: { enabled: true },
    textStyle: { fontFamily: "system-ui, -apple-system, 'Segoe UI', sans-serif" },
    legend: { top: 0, left: 0, itemGap: 14 },
    grid: {
      left: 8,
      right: chart.right ?? 16,
      top: chart.top ?? 44,
      bottom: 8,
      containLabel: true,
    },
    tooltip: {
      trigger: "axis",
      axisPointer: { type: "shadow" },
      valueFormatter: chart.valueFormatter,
    },
    xAxis: chart.xAxis,
    yAxis: {
      type: "category",
      inverse: true,
      data: chart.rows,
      axisLabel: { fontWeight: "bold", lineHeight: 16 },
    },
    series: chart.parts.map((part) => ({
      type: "bar",
      name: part.label,
      stack: chart.stack,
      barMaxWidth: 28,
      itemStyle: { color: part.color },
      emphasis: { focus: "series" },
      ...(chart.partLabel ? { label: chart.partLabel } : {}),
      data: part.values,
    })),
  };
}
