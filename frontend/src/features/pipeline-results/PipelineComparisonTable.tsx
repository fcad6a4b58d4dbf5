import type { PipelineAggregates, PipelineDiagnostics } from "../../api/types";
import {
  ConfigurationHeader,
  NoiseFloorCell,
  NoiseFloorHeader,
} from "../../components/results/ComparisonTable";
import { comparisonRows } from "../../components/results/comparison";
import { MetricCell } from "../../components/results/MetricCell";
import { formatNumber } from "../../lib/format";
import { pipelineMetrics, rampLimits, UNKNOWN } from "./pipelineComparison";
import "../../components/results/results.css";

interface Props {
  configurations: PipelineAggregates[];
  baseline: string;
  /** Every variant of the spec, for stable colours. */
  order: string[];
  /** Changes and noise floor; absent while they load or failed. */
  diagnostics?: PipelineDiagnostics;
}

/**
 * A column per variant, a row per figure of the lab Collector. Each change against the
 * baseline pipeline is the diagnostics' own sentence, coloured by its direction; the last
 * column is the noise floor.
 */
export function PipelineComparisonTable({ configurations, baseline, order, diagnostics }: Props) {
  const rows = comparisonRows(
    configurations,
    baseline,
    diagnostics,
    pipelineMetrics(configurations, diagnostics),
    rampLimits(configurations),
  );
  return (
    <div className="table-scroll">
      <table className="comparison pipeline-comparison">
        <caption>
          The lab Collector under telemetrygen's constant span rate: medians over rounds, the span
          counts summed. Each change is paired round by round against the baseline pipeline,{" "}
          <strong>{baseline}</strong>, in the diagnostics' words, coloured when it is{" "}
          <span className="direction-key" data-direction="worse">
            worse
          </span>{" "}
          or{" "}
          <span className="direction-key" data-direction="better">
            better
          </span>{" "}
          after Holm's correction over the variant's metrics. A figure the Collectors did not report
          is {UNKNOWN}, never 0.
        </caption>
        <thead>
          <tr>
            <th scope="col">Metric</th>
            {configurations.map((c) => (
              <ConfigurationHeader
                key={c.configuration}
                name={c.configuration}
                baseline={baseline}
                order={order}
                roundsCompleted={c.rounds_completed}
                roundsFailed={c.rounds_failed}
              >
                {c.ledger_totals?.generated != null && (
                  <> · {formatNumber(c.ledger_totals.generated, 0)} spans</>
                )}
                {c.generator_saturated && (
                  <span className="warning" data-testid="generator-saturated">
                    {" "}
                    · telemetrygen saturated
                  </span>
                )}
              </ConfigurationHeader>
            ))}
            {diagnostics && <NoiseFloorHeader />}
          </tr>
        </thead>
        <tbody>
          {rows.map(({ metric, cells, noiseFloor }) => (
            <tr key={metric.key} data-metric={metric.key}>
              <th scope="row" title={metric.description}>
                {metric.label}
              </th>
              {cells.map((cell) => (
                <MetricCell key={cell.configuration} cell={cell} wording="summary" />
              ))}
              {diagnostics && <NoiseFloorCell floor={noiseFloor} />}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
