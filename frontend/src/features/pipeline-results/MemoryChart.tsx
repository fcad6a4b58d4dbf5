import type { RoundRaw } from "../../api/types";
import { memorySeries } from "../../components/results/chartData";
import { aroundData, SamplesChart } from "../../components/results/SamplesChart";
import { significant } from "../../lib/format";

const mebibytes = (y: number) => `${significant(y)} MiB`;

/** The lab Collector's resident memory over the measured phase, one line per variant. */
export function MemoryChart({ rounds, order }: { rounds: RoundRaw[]; order: string[] }) {
  return (
    <SamplesChart
      rounds={rounds}
      order={order}
      seriesOf={memorySeries}
      yLabel="RSS (MiB)"
      formatY={mebibytes}
      yRange={aroundData}
      label="Collector memory over time per variant"
      testId="memory-chart"
      caption="Resident memory (RSS) of the lab Collector at each 250 ms sample: a pipeline that holds traces or batches grows while it holds them."
    />
  );
}
