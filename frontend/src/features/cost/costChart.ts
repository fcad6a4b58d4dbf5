// The cost chart's data: a horizontal bar per configuration stacking its $/month by component
// (ECharts), an unknown component left out of its bar rather than drawn as 0.

import type { ConfigurationCost } from "../../api/types";
import type { EChartOption } from "../../lib/charts/echarts";
import { COST_COMPONENTS, componentOf, formatUsd, UNKNOWN } from "./costFigures";

export interface CostBar {
  configuration: string;
  baseline: boolean;
  /** $/month per component, in COST_COMPONENTS order; null where unknown. */
  usd: (number | null)[];
  /** The configuration's total $/month; null where unknown. */
  total: number | null;
}

export function costBars(configurations: readonly ConfigurationCost[]): CostBar[] {
  return configurations.map((configuration) => ({
    configuration: configuration.configuration,
    baseline: configuration.baseline,
    usd: COST_COMPONENTS.map(
      ({ key }) => componentOf(configuration, key)?.usd_per_month.estimate ?? null,
    ),
    total: configuration.usd_per_month.estimate ?? null,
  }));
}

/** The axis label: the configuration and its total a month. */
export function costBarLabel(bar: CostBar): string {
  const total = bar.total == null ? `total ${UNKNOWN}` : `${formatUsd(bar.total)}/month`;
  return `${bar.configuration}${bar.baseline ? " (baseline)" : ""}\n${total}`;
}

/** Room for the legend and about 48 px per bar. */
export function costChartHeight(bars: number): number {
  return 100 + Math.max(1, bars) * 48;
}

const money = (value: unknown) =>
  typeof value === "number" && Number.isFinite(value) ? formatUsd(value) : UNKNOWN;

export function costChartOption(bars: readonly CostBar[]): EChartOption {
  return {
    animation: false,
    aria: { enabled: true },
    textStyle: { fontFamily: "system-ui, -apple-system, 'Segoe UI', sans-serif" },
    legend: { top: 0, left: 0, itemGap: 14 },
    grid: { left: 8, right: 24, top: 48, bottom: 8, containLabel: true },
    tooltip: {
      trigger: "axis",
      axisPointer: { type: "shadow" },
      valueFormatter: money,
    },
    xAxis: {
      type: "value",
      name: "$/month",
      nameLocation: "end",
      axisLabel: { formatter: (value: number) => money(value) },
    },
    yAxis: {
      type: "category",
      inverse: true,
      data: bars.map(costBarLabel),
      axisLabel: { fontWeight: "bold", lineHeight: 16 },
    },
    series: COST_COMPONENTS.map((component, index) => ({
      type: "bar",
      name: component.label,
      stack: "usd",
      barMaxWidth: 28,
      itemStyle: { color: component.color },
      emphasis: { focus: "series" },
      data: bars.map((bar) => bar.usd[index]),
    })),
  };
}
