import { useMemo, useState } from "react";
import type uPlot from "uplot";
import type { RoundRaw } from "../../api/types";
import { alignSeries } from "../../lib/charts/align";
import { colorFor } from "../../lib/charts/palette";
import { type ChartOptions, UPlotChart } from "../../lib/charts/UPlotChart";
import { MISSING, significant } from "../../lib/format";
import { cpuSeries, type RoundChoice, roundsWithSamples } from "./chartData";

interface Props {
  rounds: RoundRaw[];
  /** Configurations in spec order (also fixes their colours). */
  order: string[];
}

/** Service CPU utilisation over the measured phase, one line per configuration. */
export function CpuChart({ rounds, order }: Props) {
  const available = useMemo(() => roundsWithSamples(rounds), [rounds]);
  const [choice, setChoice] = useState<RoundChoice>("mean");
  const series = useMemo(() => cpuSeries(rounds, order, choice), [rounds, order, choice]);
  const data = useMemo(() => alignSeries(series), [series]);
  const options = useMemo<ChartOptions>(
    () => ({
      height: 260,
      scales: {
        x: { time: false },
        y: { range: (_u: uPlot, _min: number, max: number) => [0, Math.max(1, (max || 0) * 1.15)] },
      },
      axes: [
        { label: "Seconds into the measured phase" },
        { label: "CPU (% of one core)", size: 60 },
      ],
      series: [
        {
          label: "t",
          value: (_u: uPlot, t: number | null) => (t == null ? MISSING : `${t.toFixed(2)} s`),
        },
        ...series.map((s) => ({
          label: s.label,
          stroke: colorFor(order.indexOf(s.label)),
          width: 2,
          spanGaps: true,
          points: { show: false },
          value: (_u: uPlot, y: number | null) => (y == null ? MISSING : `${significant(y)} %`),
        })),
      ],
    }),
    [series, order],
  );

  if (available.length === 0) {
    return <p className="muted">No resource samples were recorded.</p>;
  }
  const points = series.reduce((sum, s) => sum + s.x.length, 0);
  return (
    <figure
      className="chart-figure"
      aria-label="Service CPU over time per configuration"
      data-testid="cpu-chart"
      data-points={points}
    >
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
      <UPlotChart options={options} data={data} />
      <figcaption className="muted small">
        User + system CPU of every service thread between consecutive 250 ms samples.
      </figcaption>
    </figure>
  );
}
