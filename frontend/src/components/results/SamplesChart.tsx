import { type ReactNode, useMemo, useState } from "react";
import type { RoundRaw } from "../../api/types";
import { EChart } from "../../lib/charts/EChart";
import type { EChartOption } from "../../lib/charts/echarts";
import { colorFor } from "../../lib/charts/palette";
import { type XYSeries, xyLine, xyOption } from "../../lib/charts/xy";
import { type RoundChoice, roundsWithSamples } from "./chartData";

interface Props {
  rounds: RoundRaw[];
  /** Configurations in spec order (also fixes their colours). */
  order: string[];
  /** The series of a round choice (chartData.ts: cpuSeries, memorySeries). */
  seriesOf: (rounds: RoundRaw[], order: string[], choice: RoundChoice) => XYSeries[];
  /** The y axis's label: "CPU (% of one core)". */
  yLabel: string;
  /** A y value as the legend shows it. */
  formatY: (y: number) => string;
  /** The y axis's range for the data's min and max; from 0 to a little above the max by default. */
  yRange?: (min: number, max: number) => [number, number];
  /** The figure's accessible name. */
  label: string;
  testId: string;
  caption: ReactNode;
}

/** From 0 to 15% above the max (at least 1). */
export function fromZero(_min: number, max: number): [number, number] {
  return [0, Math.max(1, max * 1.15)];
}

/** Around the data: a level that barely moves still shows its moves. */
export function aroundData(min: number, max: number): [number, number] {
  const pad = Math.max((max - min) * 0.15, 1);
  return [Math.max(0, min - pad), max + pad];
}

/** The chart: one line per configuration (its colour by spec order) over the seconds. */
export function samplesOption({
  series,
  order,
  yLabel,
  formatY,
  yRange,
  label,
}: Pick<Props, "order" | "yLabel" | "formatY" | "label"> & {
  series: XYSeries[];
  yRange: NonNullable<Props["yRange"]>;
}): EChartOption {
  return xyOption({
    description: `${label}: ${series.map((s) => s.label).join(", ")}.`,
    x: { name: "Seconds into the measured phase" },
    y: { name: yLabel, range: yRange },
    formatX: (t) => `${t.toFixed(2)} s`,
    formatY,
    series: series.map((s) => xyLine(s, colorFor(order.indexOf(s.label)))),
  });
}

/** One line per configuration over a round's 250 ms samples, or their mean over rounds. */
export function SamplesChart({
  rounds,
  order,
  seriesOf,
  yLabel,
  formatY,
  yRange = fromZero,
  label,
  testId,
  caption,
}: Props) {
  const available = useMemo(() => roundsWithSamples(rounds), [rounds]);
  const [choice, setChoice] = useState<RoundChoice>("mean");
  const series = useMemo(() => seriesOf(rounds, order, choice), [seriesOf, rounds, order, choice]);
  const option = useMemo(
    () => samplesOption({ series, order, yLabel, formatY, yRange, label }),
    [series, order, yLabel, formatY, yRange, label],
  );

  if (available.length === 0) {
    return <p className="muted">No resource samples were recorded.</p>;
  }
  const points = series.reduce((sum, s) => sum + s.x.length, 0);
  return (
    <figure className="chart-figure" aria-label={label} data-testid={testId} data-points={points}>
      <div className="toolbar">
        <label>
          Rounds{" "}
          <select
            value={String(choice)}
            onChange={(event) =>
              setChoice(event.target.value === "mean" ? "mean" : Number(event.target.value))
            }
          >
            <option value="mean">mean of completed rounds</option>
            {available.map((index) => (
              <option key={index} value={index}>
                round {index + 1}
              </option>
            ))}
          </select>
        </label>
      </div>
      <EChart option={option} height={260} />
      <figcaption className="muted small">{caption}</figcaption>
    </figure>
  );
}
