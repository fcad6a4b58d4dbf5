import type { ConfigurationAggregates } from "../../api/types";
import { colorFor } from "../../lib/charts/palette";
import { formatNumber } from "../../lib/format";
import { comparisonRows } from "./comparison";
import { MetricCell } from "./MetricCell";

interface Props {
  configurations: ConfigurationAggregates[];
  baseline: string;
  /** Every configuration of the spec, for stable colours. */
  order: string[];
}

/** A column per configuration, a row per metric; differences are against the baseline. */
export function ComparisonTable({ configurations, baseline, order }: Props) {
  const rows = comparisonRows(configurations, baseline);
  return (
    <div className="table-scroll">
      <table className="comparison">
        <caption>
          Medians over rounds; latency from the merged histogram of all rounds. Differences are
          against the baseline, <strong>{baseline}</strong>.
        </caption>
        <thead>
          <tr>
            <th scope="col">Metric</th>
            {configurations.map((c) => (
              <th
                scope="col"
                key={c.configuration}
                className={c.configuration === baseline ? "is-baseline" : undefined}
              >
                <span
                  className="swatch"
                  style={{ background: colorFor(order.indexOf(c.configuration)) }}
                  aria-hidden="true"
                />
                {c.configuration}
                {c.configuration === baseline && <span className="tag">baseline</span>}
                <div className="muted small column-meta">
                  {c.rounds_completed} round{c.rounds_completed === 1 ? "" : "s"}
                  {c.rounds_failed > 0 && <span className="error">, {c.rounds_failed} failed</span>}{" "}
                  · {formatNumber(c.requests, 0)} requests
                  {c.errors > 0 && (
                    <span className="error">, {formatNumber(c.errors, 0)} errors</span>
                  )}
                </div>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map(({ metric, cells }) => (
            <tr key={metric.key} data-metric={metric.key}>
              <th scope="row" title={metric.description}>
                {metric.label}
              </th>
              {cells.map((cell) => (
                <MetricCell key={cell.configuration} cell={cell} />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
