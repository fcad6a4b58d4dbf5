// The cost chart's data: a horizontal bar per configuration stacking its $/month by component
// (ECharts), an unknown component left out of its bar rather than drawn as 0.

import type { ConfigurationCost } from "../../api/types";
import {
  COST_COMPONENTS,
  componentOf,
  formatUsd,
  UNKNOWN,
} from "../../components/results/costFigures";
import type { EChartOption } from "../../lib/charts/echarts";
import { stackedBarsOption } from "../../lib/charts/stackedBars";

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
  return stackedBarsOption({
    rows: bars.map(costBarLabel),
    parts: COST_COMPONENTS.map((component, index) => ({
      label: component.label,
      color: component.color,
      values: bars.map((bar) => bar.usd[index]),
    })),
    stack: "usd",
    xAxis: {
      type: "value",
      name: "$/month",
      nameLocation: "end",
      axisLabel: { formatter: (value: number) => money(value) },
    },
    valueFormatter: money,
    top: 48,
    right: 24,
  });
}
