import type { ReactNode } from "react";
import type { ConfigurationAggregates, Diagnostics, NoiseFloor } from "../../api/types";
import { colorFor } from "../../lib/charts/palette";
import { formatNumber, MISSING } from "../../lib/format";
import { comparisonRows } from "./comparison";
import { MetricCell } from "./MetricCell";
import { describeNoiseFloor } from "./overhead";
import { serviceMetrics } from "./sideBySide";
import "./results.css";

interface Props {
  configurations: ConfigurationAggregates[];
  baseline: string;
  /** Every configuration of the spec, for stable colours. */
  order: string[];
  /** Changes, noise floor and dropped spans; absent while they load or failed. */
  diagnostics?: Diagnostics;
  /** Per configuration, what limited its max throughput when not the service (rounds.ts). */
  limits?: Record<string, string | null>;
  /** Per configuration, the concurrency it ran with ("threads 64"); empty when none set any. */
  concurrency?: Record<string, string>;
}

/**
 * A column per configuration, a row per metric. The change against the baseline (absolute and
 * relative, 95% intervals, direction after Holm) comes from the diagnostics; the last column
 * is the noise floor: the smallest change these rounds can tell from noise.
 */
export function ComparisonTable({
  configurations,
  baseline,
  order,
  diagnostics,
  limits,
  concurrency = {},
}: Props) {
  const showConcurrency = Object.keys(concurrency).length > 0;
  const metrics = serviceMetrics(configurations, diagnostics?.side_by_side);
  const rows = comparisonRows(configurations, baseline, diagnostics, metrics, limits);
  return (
    <div className="table-scroll">
      <table className="comparison">
        <caption>
          Medians over rounds; latency from the merged histogram of all rounds. Each change is
          paired round by round against the baseline, <strong>{baseline}</strong>: the absolute
          change with its 95% interval, the relative change, and whether it is{" "}
          <span className="direction-key" data-direction="worse">
            worse
          </span>
          ,{" "}
          <span className="direction-key" data-direction="better">
            better
          </span>{" "}
          or no significant change after Holm's correction over the configuration's seven metrics (a
          drop in throughput is worse).
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
                below={
                  showConcurrency && (
                    <div className="muted small column-meta" data-testid="concurrency">
                      {concurrency[c.configuration] || "default concurrency"}
                    </div>
                  )
                }
              >
                {" "}
                · {formatNumber(c.requests, 0)} requests
                {c.errors > 0 && (
                  <span className="error">, {formatNumber(c.errors, 0)} errors</span>
                )}
              </ConfigurationHeader>
            ))}
            {diagnostics && <NoiseFloorHeader />}
          </tr>
        </thead>
        <tbody>
          {rows.map(({ metric, cells, noiseFloor }) => {
            return (
              <tr key={metric.key} data-metric={metric.key}>
                <th scope="row" title={metric.description}>
                  {metric.label}
                </th>
                {cells.map((cell) => (
                  <MetricCell key={cell.configuration} cell={cell} />
                ))}
                {diagnostics && <NoiseFloorCell floor={noiseFloor} />}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A row's noise floor, as the diagnostics computed it: ± relative and absolute with its pairs,
 * or unknown with why; "—" for a metric without one.
 */
export function NoiseFloorCell({ floor: noiseFloor }: { floor: NoiseFloor | null }) {
  const floor = describeNoiseFloor(noiseFloor);
  return (
    <td className="noise-floor" data-testid="noise-floor">
      {!floor ? (
        <span className="muted">{MISSING}</span>
      ) : floor.known ? (
        <>
          <span className="metric-floor">{floor.relative}</span>
          {floor.absolute && <span className="metric-interval">{floor.absolute}</span>}
          <span className="metric-stats">{floor.pairs}</span>
        </>
      ) : (
        <>
          <span className="metric-floor">unknown</span>
          {floor.note && <span className="metric-interval metric-note">{floor.note}</span>}
        </>
      )}
    </td>
  );
}

interface ConfigurationHeaderProps {
  name: string;
  baseline: string;
  /** Every configuration of the spec, for stable colours. */
  order: string[];
  roundsCompleted: number;
  roundsFailed: number;
  /** What the subject adds to the rounds line (requests and errors, spans generated, …). */
  children?: ReactNode;
  /** Lines under the rounds line. */
  below?: ReactNode;
}

/** A configuration's (or variant's) column head: its colour, name, baseline tag and rounds. */
export function ConfigurationHeader({
  name,
  baseline,
  order,
  roundsCompleted,
  roundsFailed,
  children,
  below,
}: ConfigurationHeaderProps) {
  return (
    <th scope="col" className={name === baseline ? "is-baseline" : undefined}>
      <span
        className="swatch"
        style={{ background: colorFor(order.indexOf(name)) }}
        aria-hidden="true"
      />
      {name}
      {name === baseline && <span className="tag">baseline</span>}
      <div className="muted small column-meta">
        {roundsCompleted} round{roundsCompleted === 1 ? "" : "s"}
        {roundsFailed > 0 && <span className="error">, {roundsFailed} failed</span>}
        {children}
      </div>
      {below}
    </th>
  );
}

/** The noise floor column's head. */
export function NoiseFloorHeader() {
  return (
    <th scope="col" className="noise-floor">
      Noise floor
      <div className="muted small column-meta">smallest change these rounds resolve (95%)</div>
    </th>
  );
}
