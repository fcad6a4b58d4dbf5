import { Link } from "react-router";
import { formatNumber } from "../../lib/format";
import { formatKept, formatLost, formatOverhead, formatRss, type TradeoffPoint } from "./tradeoff";
import "./tunings.css";

/** The chart's figures as a table: every candidate at its last rung, the front marked. */
export function TradeoffTable({ points }: { points: TradeoffPoint[] }) {
  return (
    <div className="table-scroll">
      <table className="tradeoff-table" data-testid="tradeoff-table">
        <caption className="muted small">
          Every candidate at the last rung it reached, by p99 overhead; changes against no SDK in
          the same interleaved rounds. ● marks the Pareto front.
        </caption>
        <thead>
          <tr>
            <th scope="col">Setting</th>
            <th scope="col">Pareto front</th>
            <th scope="col">p99 overhead</th>
            <th scope="col">CPU overhead</th>
            <th scope="col">Spans kept</th>
            <th scope="col">Spans lost in the SDK</th>
            <th scope="col">Memory (peak RSS)</th>
            <th scope="col">Last measured</th>
          </tr>
        </thead>
        <tbody>
          {points.map((point) => {
            const { outcome } = point;
            return (
              <tr
                key={outcome.name}
                data-setting={outcome.name}
                data-front={point.onFront || undefined}
              >
                <th scope="row">
                  <span className="mono">{outcome.name}</span>
                  {point.recommended && <span className="tag tag-ok">recommended</span>}
                  {outcome.sampled && <span className="tag">sampled</span>}
                </th>
                <td>
                  {point.onFront ? (
                    <>
                      <span aria-hidden="true">● </span>on the front
                    </>
                  ) : (
                    <span className="muted">off the front</span>
                  )}
                </td>
                <td>{formatOverhead(outcome.p99_overhead_pct)}</td>
                <td>{formatOverhead(outcome.cpu_overhead_pct)}</td>
                <td>{formatKept(outcome.kept)}</td>
                <td>{formatLost(outcome.lost_spans)}</td>
                <td>{formatRss(outcome.rss_mib)}</td>
                <td>
                  {point.experimentId === null ? (
                    <span className="muted">unknown</span>
                  ) : (
                    <Link to={`/experiments/${point.experimentId}`}>
                      rung {point.rung}, {formatNumber(point.measureS)} s a phase
                    </Link>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
