import type { RoundRaw } from "../../api/types";
import { cpuSeries } from "../../components/results/chartData";
import { SamplesChart } from "../../components/results/SamplesChart";
import { significant } from "../../lib/format";

const percent = (y: number) => `${significant(y)} %`;

/** Service CPU utilisation over the measured phase, one line per configuration. */
export function CpuChart({ rounds, order }: { rounds: RoundRaw[]; order: string[] }) {
  return (
    <SamplesChart
      rounds={rounds}
      order={order}
      seriesOf={cpuSeries}
      yLabel="CPU (% of one core)"
      formatY={percent}
      label="Service CPU over time per configuration"
      testId="cpu-chart"
      caption="User + system CPU of every service thread between consecutive 250 ms samples."
    />
  );
}
