import type { ScatterSeriesOption } from "echarts/charts";
import { useMemo } from "react";
import type { PipelineAggregates } from "../../api/types";
import { EChart } from "../../lib/charts/EChart";
import type { EChartOption } from "../../lib/charts/echarts";
import { colorFor } from "../../lib/charts/palette";
import { xyLine, xyOption, xyPoints } from "../../lib/charts/xy";
import { formatCores, formatSpanRate } from "../../lib/format";
import { coresRange, type RampCurve, rampCurves, rateRange } from "./rampChart";
import "./pipelineResults.css";

/**
 * The chart: per variant, the steps kept up with as a line with filled markers, and the steps
 * not kept up with as hollow markers apart from it (no line to them).
 */
export function rampOption(curves: readonly RampCurve[], order: readonly string[]): EChartOption {
  const series = curves.flatMap((curve) => {
    const color = colorFor(order.indexOf(curve.variant));
    const kept = {
      ...xyLine(curve.kept, color),
      showSymbol: true,
      symbol: "circle",
      symbolSize: 6,
    };
    const notKept: ScatterSeriesOption = {
      type: "scatter",
      name: curve.notKept.label,
      data: xyPoints(curve.notKept),
      symbolSize: 11,
      itemStyle: { color: "#fff", borderColor: color, borderWidth: 2 },
    };
    return curve.notKept.x.length > 0 ? [kept, notKept] : [kept];
  });
  return xyOption({
    description: `Collector CPU against span rate of ${curves.map((c) => c.variant).join(", ")}.`,
    x: { name: "Spans per second achieved", range: rateRange },
    y: { name: "Collector CPU (cores)", range: coresRange },
    formatX: formatSpanRate,
    formatY: formatCores,
    series,
    left: 82,
  });
}

/**
 * The lab Collector's cores against the span rate it was sent along each variant's ramp: a
 * capacity plan's curve. The step a variant did not keep up with is a hollow marker.
 */
export function RampChart({
  configurations,
  order,
}: {
  configurations: PipelineAggregates[];
  order: string[];
}) {
  const curves = useMemo(() => rampCurves(configurations, order), [configurations, order]);
  const option = useMemo(() => rampOption(curves, order), [curves, order]);

  if (curves.length === 0) return null;
  const points = curves.reduce((sum, c) => sum + c.kept.x.length + c.notKept.x.length, 0);
  const missed = curves.flatMap((c) =>
    c.notKept.x.map((x, i) => ({ variant: c.variant, x, why: c.why[i] })),
  );
  return (
    <figure
      className="chart-figure ramp-chart-figure"
      aria-label="Collector CPU against span rate per variant"
      data-testid="ramp-chart"
      data-points={points}
    >
      <EChart option={option} height={280} />
      <figcaption className="muted small">
        The lab Collector's cores at each ramp step, against the span rate telemetrygen achieved
        (every round's steps). A hollow marker is a step the variant did not keep up with.
        {missed.length > 0 && (
          <ul className="ramp-missed">
            {missed.map(({ variant, x, why }) => (
              <li key={`${variant}-${x}`}>
                {variant}: not kept up at {formatSpanRate(x)}
                {why ? ` (${why})` : ""}
              </li>
            ))}
          </ul>
        )}
      </figcaption>
    </figure>
  );
}
