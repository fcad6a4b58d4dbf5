import { Fragment, type ReactNode } from "react";
import type { RoundRaw, RoundSummary } from "../../api/types";
import { formatMicros, formatNumber, formatRate, MISSING } from "../../lib/format";
import { StatusBadge } from "../StatusBadge";
import {
  type IsolationRecord,
  isolationRecords,
  limiter,
  limiterText,
  PHASE_NAMES,
  shutdownRecord,
} from "./rounds";
import { stackDownReasons } from "./stackHealth";
import "./results.css";

function phaseName(record: IsolationRecord): string {
  return record.phase ? (PHASE_NAMES[record.phase] ?? record.phase) : "measured phase";
}

function IsolationCell({ records }: { records: IsolationRecord[] }) {
  if (records.length === 0) return <span className="muted">{MISSING}</span>;
  const flagged = records.filter((r) => r.flagged);
  if (flagged.length === 0) {
    return (
      <span className="muted" title={records.map((r) => r.note).find(Boolean) ?? undefined}>
        clean
      </span>
    );
  }
  return <span className="badge badge-flagged">flagged: {flagged.map(phaseName).join(", ")}</span>;
}

function IsolationDetail({ records, measured }: { records: IsolationRecord[]; measured: string }) {
  return (
    <div className="round-isolation" data-testid="round-isolation">
      <p className="warning">
        <strong>Other processes on the {measured}'s cores</strong> (figures of this round are
        suspect):
      </p>
      <ul>
        {records.map((record) => (
          <li key={record.phase ?? "phase"}>
            <strong>{phaseName(record)}:</strong>{" "}
            {record.reasons.length > 0 ? record.reasons.join("; ") : "flagged"}
            {record.service_run_delay_ms != null && (
              <span className="muted">
                {" "}
                (the {measured} waited {formatNumber(record.service_run_delay_ms, 1)} ms for a CPU)
              </span>
            )}
            {record.foreign_tasks.length > 0 && (
              <span className="small">
                {" "}
                —{" "}
                {record.foreign_tasks
                  .map(
                    (task) =>
                      `${task.comm}${task.kernel ? " [kernel]" : ""}${task.exited ? " [exited]" : ""} (pid ${task.pid ?? "?"}, ${formatNumber(task.cpu_s, 2)} s)`,
                  )
                  .join(", ")}
              </span>
            )}
            {record.foreign_explanation && (
              <p className="small muted" data-testid="foreign-explanation">
                {record.foreign_explanation}
              </p>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

type AnyRound = RoundSummary | RoundRaw;

/** A column of what a round measured, between its status and its isolation. */
export interface RoundColumn {
  header: string;
  cell: (round: AnyRound) => ReactNode;
}

/** A service's round: requests, rate and p99 of the measured phase, its max throughput. */
export const SERVICE_ROUND_COLUMNS: RoundColumn[] = [
  { header: "Requests", cell: (round) => formatNumber(round.requests, 0) },
  { header: "Achieved rate", cell: (round) => formatRate(round.achieved_rps) },
  { header: "p99", cell: (round) => formatMicros(round.p99_us) },
  {
    header: "Max throughput",
    cell: (round) => {
      const limit = limiter(round);
      return (
        <>
          {formatRate(round.max_throughput_rps)}
          {limit && round.max_throughput_rps != null && (
            <span
              className={`small limited-by${limit.by === "service" ? " muted" : ""}`}
              title={limit.reason ?? undefined}
            >
              {limiterText(limit.by)}
            </span>
          )}
        </>
      );
    },
  },
];

/**
 * Every (round, configuration) run in the order it ran: failed runs show why and the log
 * tail; a round whose measured phase other processes interfered with shows who, a service
 * that did not exit cleanly after SIGTERM says what that means for its telemetry, and the
 * max throughput says what limited it when that was not the service.
 */
export function RoundsTable({
  rounds,
  columns: measures = SERVICE_ROUND_COLUMNS,
  measured = "service",
}: {
  rounds: AnyRound[];
  /** What each run measured; a service's by default. */
  columns?: RoundColumn[];
  /** What runs on the measured cores: "service", "lab Collector". */
  measured?: string;
}) {
  if (rounds.length === 0) return <p className="muted">No round has started yet.</p>;
  const sorted = [...rounds].sort(
    (a, b) => a.round_index - b.round_index || a.order_index - b.order_index,
  );
  const columns = 6 + measures.length;
  return (
    <div className="table-scroll">
      <table className="rounds">
        <thead>
          <tr>
            <th scope="col">Round</th>
            <th scope="col">Order</th>
            <th scope="col">Configuration</th>
            <th scope="col">Status</th>
            {measures.map((measure) => (
              <th scope="col" key={measure.header}>
                {measure.header}
              </th>
            ))}
            <th scope="col">Isolation</th>
            <th scope="col">Exit code</th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((round) => {
            const records = isolationRecords(round);
            const flagged = records.filter((r) => r.flagged);
            const shutdown = shutdownRecord(round);
            const unclean = shutdown != null && !shutdown.clean;
            const stackDown = stackDownReasons(round);
            const classes = [
              round.status === "failed" ? "row-failed" : null,
              flagged.length > 0 || stackDown.length > 0 ? "row-flagged" : null,
            ].filter(Boolean);
            return (
              <Fragment key={round.run_id}>
                <tr
                  className={classes.length > 0 ? classes.join(" ") : undefined}
                  data-round={`${round.configuration}-${round.round_index}`}
                >
                  <td>{round.round_index + 1}</td>
                  <td>{round.order_index + 1}</td>
                  <th scope="row">{round.configuration}</th>
                  <td>
                    <StatusBadge status={round.status} />
                  </td>
                  {measures.map((measure) => (
                    <td key={measure.header}>{measure.cell(round)}</td>
                  ))}
                  <td>
                    <IsolationCell records={records} />
                  </td>
                  <td>
                    {round.exit_code ?? MISSING}
                    {unclean && <span className="small warning"> not clean</span>}
                  </td>
                </tr>
                {(round.error ||
                  round.service_log_tail ||
                  flagged.length > 0 ||
                  unclean ||
                  stackDown.length > 0) && (
                  <tr className="round-detail">
                    <td colSpan={columns}>
                      {round.error && (
                        <p className="error">
                          <strong>Error:</strong> {round.error}
                        </p>
                      )}
                      {flagged.length > 0 && (
                        <IsolationDetail records={flagged} measured={measured} />
                      )}
                      {stackDown.length > 0 && (
                        <p className="warning" data-testid="round-stack-health">
                          <strong>Stack not ready around this round:</strong> {stackDown.join("; ")}
                          . The round is kept; what the stack counted or stored of it cannot be
                          trusted.
                        </p>
                      )}
                      {unclean && (
                        <p className="warning" data-testid="round-shutdown">
                          <strong>Shutdown:</strong>{" "}
                          {shutdown.note ??
                            `exited with code ${shutdown.exit_code ?? "unknown"} after SIGTERM`}
                          {round.status === "completed" && " Its measured phases are kept."}
                        </p>
                      )}
                      {round.service_log_tail && (
                        <details open={round.status === "failed"}>
                          <summary>
                            {measured === "service" ? "Service" : "Collector"} log tail (
                            {round.configuration}, round {round.round_index + 1})
                          </summary>
                          <pre className="log">{round.service_log_tail}</pre>
                        </details>
                      )}
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
