import { Link } from "react-router";
import type { ExperimentSummary } from "../../api/types";
import { StatusBadge } from "../../components/StatusBadge";
import { formatDateTime, MISSING } from "../../lib/format";

/** The list: status, service, configurations (baseline first-marked), verdict, date. */
export function ExperimentsTable({ experiments }: { experiments: ExperimentSummary[] }) {
  return (
    <div className="table-scroll">
      <table className="experiments">
        <thead>
          <tr>
            <th scope="col">Experiment</th>
            <th scope="col">Status</th>
            <th scope="col">Service</th>
            <th scope="col">Configurations</th>
            <th scope="col">Verdict</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {experiments.map((experiment) => (
            <tr key={experiment.id}>
              <th scope="row">
                <Link to={`/experiments/${experiment.id}`}>
                  {experiment.name || `Experiment ${experiment.id.slice(0, 8)}`}
                </Link>
                <div className="muted small mono">{experiment.id.slice(0, 8)}</div>
              </th>
              <td>
                <StatusBadge status={experiment.status} />
                {experiment.status === "queued" && experiment.queue_position != null && (
                  <div className="muted small">position {experiment.queue_position}</div>
                )}
              </td>
              <td>{experiment.service}</td>
              <td>
                <ul className="chips">
                  {experiment.configurations.map((name) => (
                    <li
                      key={name}
                      className={name === experiment.baseline ? "chip chip-baseline" : "chip"}
                    >
                      {name}
                      {name === experiment.baseline && (
                        <span className="visually-hidden"> (baseline)</span>
                      )}
                    </li>
                  ))}
                </ul>
              </td>
              {/* The verdict comes with the diagnostics (overhead intervals and budgets). */}
              <td className="verdict">{MISSING}</td>
              <td>
                <time dateTime={experiment.created_at}>
                  {formatDateTime(experiment.created_at)}
                </time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
