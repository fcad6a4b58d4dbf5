import type { ConfigurationAggregates, Diagnostics } from "../../api/types";
import { colorFor } from "../../lib/charts/palette";
import { formatNumber, MISSING } from "../../lib/format";
import { comparisonRows } from "./comparison";
import { MetricCell } from "./MetricCell";
import { describeOverhead } from "./overhead";

interface Props {
  configurations: ConfigurationAggregates[];
  baseline: string;
  /** Every configuration of the spec, for stable colours. */
  order: string[];
  /** Overhead intervals, noise floor and dropped spans; absent while they load or failed. */
  diagnostics?: Diagnostics;
}

/**
 * A column per configuration, a row per metric. Overhead against the baseline and its 95%
 * interval come from the diagnostics; the last column is the noise floor (baseline vs itself).
 */
export function ComparisonTable({ configurations, baseline, order, diagnostics }: Props) {
  const rows = comparisonRows(configurations, baseline, diagnostics);
  return (
    <div className="table-scroll">
      <table className="comparison">
        <caption>
          Medians over rounds; latency from the merged histogram of all rounds. Overhead is against
          the baseline, <strong>{baseline}</strong>, with its 95% interval; a{" "}
          <span className="significant-key">significant</span> overhead's interval excludes zero.
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
            {diagnostics && (
              <th scope="col" className="noise-floor">
                Noise floor
                <div className="muted small column-meta">baseline against itself</div>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {rows.map(({ metric, cells, noiseFloor }) => {
            const floor = describeOverhead(noiseFloor);
            return (
              <tr key={metric.key} data-metric={metric.key}>
                <th scope="row" title={metric.description}>
                  {metric.label}
                </th>
                {cells.map((cell) => (
                  <MetricCell key={cell.configuration} cell={cell} />
                ))}
                {diagnostics && (
                  <td className="noise-floor" data-testid="noise-floor">
                    {floor ? (
                      <>
                        <span className="metric-interval">{floor.range ?? MISSING}</span>
                        {!floor.range && floor.note && (
                          <span className="metric-interval metric-note">{floor.note}</span>
                        )}
                        {floor.significant && (
                          <span className="error small">significant: the rounds disagree</span>
                        )}
                      </>
                    ) : (
                      <span className="muted">{MISSING}</span>
                    )}
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
