import { useMemo } from "react";
import type { ConfigurationAggregates } from "../../api/types";
import {
  PERCENTILE_TICK_XS,
  percentileHoverLabel,
  percentileRange,
  percentileSeries,
  percentileTickLabel,
} from "../../components/results/chartData";
import { EChart } from "../../lib/charts/EChart";
import type { EChartOption } from "../../lib/charts/echarts";
import { colorFor } from "../../lib/charts/palette";
import { type XYSeries, xyLine, xyOption } from "../../lib/charts/xy";
import { formatMicros, MISSING } from "../../lib/format";

interface Props {
  configurations: ConfigurationAggregates[];
  order: string[];
}

/**
 * The chart: each configuration's latency (ms) over a logarithmic percentile axis, its ticks at
 * p50, p90, p99...; the wheel zooms into the percentiles, a drag pans.
 */
export function percentileOption(
  series: readonly XYSeries[],
  order: readonly string[],
): EChartOption {
  const [min, max] = percentileRange(series);
  return {
    ...xyOption({
      description: `Latency by percentile of ${series.map((s) => s.label).join(", ")}.`,
      x: {
        name: "Percentile",
        log: true,
        min,
        max,
        ticks: PERCENTILE_TICK_XS,
        tickLabel: percentileTickLabel,
      },
      y: { name: "Latency (ms)", range: (_min, top) => [0, (top || 1) * 1.05] },
      formatX: (x) => percentileHoverLabel(x) || MISSING,
      formatY: (ms) => formatMicros(ms * 1000),
      series: series.map((s) => xyLine(s, colorFor(order.indexOf(s.label)))),
    }),
    dataZoom: [{ type: "inside", xAxisIndex: 0, filterMode: "none" }],
  };
}

/** Latency by percentile, every configuration overlaid, on a logarithmic percentile axis. */
export function PercentilePlot({ configurations, order }: Props) {
  const series = useMemo(() => percentileSeries(configurations), [configurations]);
  const option = useMemo(() => percentileOption(series, order), [series, order]);

  const points = series.reduce((sum, s) => sum + s.x.length, 0);
  if (points === 0) return <p className="muted">No latency was recorded.</p>;
  return (
    <figure
      className="chart-figure"
      aria-label="Latency by percentile per configuration"
      data-testid="percentile-plot"
      data-series={series.length}
      data-points={points}
    >
      <EChart option={option} height={360} />
      <figcaption className="muted small">
        Coordinated-omission-corrected latency from each configuration's merged histogram. The
        percentile axis is logarithmic in 1/(1 − p): every step to the right is ten times rarer.
        Scroll over the chart to zoom, drag to pan.
      </figcaption>
    </figure>
  );
}
