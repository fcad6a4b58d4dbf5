import { useMemo } from "react";
import type uPlot from "uplot";
import type { PipelineAggregates } from "../../api/types";
import { alignSeries } from "../../lib/charts/align";
import { colorFor } from "../../lib/charts/palette";
import { type ChartOptions, UPlotChart } from "../../lib/charts/UPlotChart";
import { formatCores, formatSpanRate, MISSING } from "../../lib/format";
import { coresRange, rampCurves, rateRange } from "./rampChart";

/** No line between markers: the steps not kept up with are points apart from the curve. */
const noLine = () => null;

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
  const plotted = useMemo(
    () =>
      curves.flatMap((curve) => [
        { series: curve.kept, variant: curve.variant, kept: true },
        ...(curve.notKept.x.length > 0
          ? [{ series: curve.notKept, variant: curve.variant, kept: false }]
          : []),
      ]),
    [curves],
  );
  const data = useMemo(() => alignSeries(plotted.map((p) => p.series)), [plotted]);
  const options = useMemo<ChartOptions>(
    () => ({
      height: 280,
      scales: {
        x: {
          time: false,
          range: (_u: uPlot, min: number, max: number) => rateRange(min || 0, max || 0),
        },
        y: { range: (_u: uPlot, min: number, max: number) => coresRange(min || 0, max || 0) },
      },
      axes: [{ label: "Spans per second achieved" }, { label: "Collector CPU (cores)", size: 70 }],
      series: [
        {
          label: "rate",
          value: (_u: uPlot, x: number | null) => (x == null ? MISSING : formatSpanRate(x)),
        },
        ...plotted.map(({ series, variant, kept }) => {
          const color = colorFor(order.indexOf(variant));
          return {
            label: series.label,
            stroke: color,
            width: 2,
            spanGaps: true,
            value: (_u: uPlot, y: number | null) => (y == null ? MISSING : formatCores(y)),
            ...(kept
              ? { points: { show: true, size: 6, fill: color } }
              : {
                  paths: noLine,
                  points: { show: true, size: 11, width: 2, stroke: color, fill: "#fff" },
                }),
          };
        }),
      ],
    }),
    [plotted, order],
  );

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
      <UPlotChart options={options} data={data} />
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
