import { Fragment } from "react";
import type { RoundSummary } from "../../api/types";
import { StatusBadge } from "../../components/StatusBadge";
import { formatMicros, formatNumber, formatRate, MISSING } from "../../lib/format";

/** Every (round, configuration) run in the order it ran; failed runs show why and the log tail. */
export function RoundsTable({ rounds }: { rounds: RoundSummary[] }) {
  if (rounds.length === 0) return <p className="muted">No round has started yet.</p>;
  const sorted = [...rounds].sort(
    (a, b) => a.round_index - b.round_index || a.order_index - b.order_index,
  );
  const columns = 9;
  return (
    <div className="table-scroll">
      <table className="rounds">
        <thead>
          <tr>
            <th scope="col">Round</th>
            <th scope="col">Order</th>
            <th scope="col">Configuration</th>
            <th scope="col">Status</th>
            <th scope="col">Requests</th>
            <th scope="col">Achieved rate</th>
            <th scope="col">p99</th>
            <th scope="col">Max throughput</th>
            <th scope="col">Exit code</th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((round) => (
            <Fragment key={round.run_id}>
              <tr className={round.status === "failed" ? "row-failed" : undefined}>
                <td>{round.round_index + 1}</td>
                <td>{round.order_index + 1}</td>
                <th scope="row">{round.configuration}</th>
                <td>
                  <StatusBadge status={round.status} />
                </td>
                <td>{formatNumber(round.requests, 0)}</td>
                <td>{formatRate(round.achieved_rps)}</td>
                <td>{formatMicros(round.p99_us)}</td>
                <td>{formatRate(round.max_throughput_rps)}</td>
                <td>{round.exit_code ?? MISSING}</td>
              </tr>
              {(round.error || round.service_log_tail) && (
                <tr className="round-detail">
                  <td colSpan={columns}>
                    {round.error && (
                      <p className="error">
                        <strong>Error:</strong> {round.error}
                      </p>
                    )}
                    {round.service_log_tail && (
                      <details open={round.status === "failed"}>
                        <summary>
                          Service log tail ({round.configuration}, round {round.round_index + 1})
                        </summary>
                        <pre className="log">{round.service_log_tail}</pre>
                      </details>
                    )}
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
    </div>
  );
}
