import { Link } from "react-router";
import { type ExperimentSummary, isPipelineSummary } from "../../api/types";
import { CreatedCell, ListTable, NameCell, StatusCell } from "../../components/ListTable";
import { MISSING } from "../../lib/format";
import { DeleteExperimentButton } from "./DeleteExperimentButton";

/**
 * The list: status, what was measured (a service, or a Collector pipeline), configurations or
 * pipeline variants (baseline marked), verdict, date, and Delete once it has ended.
 */
export function ExperimentsTable({ experiments }: { experiments: ExperimentSummary[] }) {
  return (
    <ListTable
      className="experiments"
      columns={[
        "Experiment",
        "Status",
        "Measures",
        "Configurations",
        "Verdict",
        "Created",
        "Actions",
      ]}
    >
      {experiments.map((experiment) => (
        <tr key={experiment.id}>
          <NameCell
            to={`/experiments/${experiment.id}`}
            name={experiment.name || `Experiment ${experiment.id.slice(0, 8)}`}
            id={experiment.id}
          />
          <StatusCell status={experiment.status}>
            {experiment.status === "queued" && experiment.queue_position != null && (
              <div className="muted small">position {experiment.queue_position}</div>
            )}
            {experiment.status === "queued" && experiment.waiting_for && (
              <div className="muted small">{experiment.waiting_for}</div>
            )}
          </StatusCell>
          <td>
            {isPipelineSummary(experiment) ? (
              <span className="subject-pipeline">Collector pipeline</span>
            ) : (
              // A service's page: its configurations' latest overhead and trend.
              <Link to={`/services/${encodeURIComponent(experiment.service)}`}>
                {experiment.service}
              </Link>
            )}
          </td>
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
          <CreatedCell at={experiment.created_at} />
          <td>
            <DeleteExperimentButton experiment={experiment} compact />
          </td>
        </tr>
      ))}
    </ListTable>
  );
}
