import { useMemo } from "react";
import type uPlot from "uplot";
import type { ConfigurationAggregates } from "../../api/types";
import {
  PERCENTILE_TICK_XS,
  percentileHoverLabel,
  percentileRange,
  percentileSeries,
  percentileTickLabel,
} from "../../components/results/chartData";
import { alignSeries } from "../../lib/charts/align";
import { colorFor } from "../../lib/charts/palette";
import { type ChartOptions, UPlotChart } from "../../lib/charts/UPlotChart";
import { formatMicros, MISSING } from "../../lib/format";

interface Props {
  configurations: ConfigurationAggregates[];
  order: string[];
}

// uPlot's log axes keep only exact powers of the base by default; every tick here is wanted.
const keepAll = (_u: uPlot, splits: number[]) => splits;

/** Latency by percentile, every configuration overlaid, on a logarithmic percentile axis. */
export function PercentilePlot({ configurations, order }: Props) {
  const series = useMemo(() => percentileSeries(configurations), [configurations]);
  const data = useMemo(() => alignSeries(series), [series]);
  const options = useMemo<ChartOptions>(() => {
    const [min, max] = percentileRange(series);
    return {
      height: 360,
      scales: {
        x: { time: false, distr: 3, log: 10, range: [min, max] },
        y: { range: (_u: uPlot, _min: number, dataMax: number) => [0, (dataMax || 1) * 1.05] },
      },
      axes: [
        {
          label: "Percentile",
          splits: () => PERCENTILE_TICK_XS,
          filter: keepAll,
          grid: { filter: keepAll },
          ticks: { filter: keepAll },
          values: (_u: uPlot, splits: number[]) => splits.map(percentileTickLabel),
        },
        { label: "Latency (ms)", size: 60 },
      ],
      series: [
        {
          label: "Percentile",
          value: (_u: uPlot, x: number | null) => percentileHoverLabel(x) || MISSING,
        },
        ...series.map((s) => ({
          label: s.label,
          stroke: colorFor(order.indexOf(s.label)),
          width: 2,
          spanGaps: true,
          points: { show: false },
          value: (_u: uPlot, y: number | null) => (y == null ? MISSING : formatMicros(y * 1000)),
        })),
      ],
      cursor: { drag: { x: true, y: false } },
    };
  }, [series, order]);

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
      <UPlotChart options={options} data={data} />
      <figcaption className="muted small">
        Coordinated-omission-corrected latency from each configuration's merged histogram. The
        percentile axis is logarithmic in 1/(1 − p): every step to the right is ten times rarer.
        Drag to zoom, double-click to reset.
      </figcaption>
    </figure>
  );
}
