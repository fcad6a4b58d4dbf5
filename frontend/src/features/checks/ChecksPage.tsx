import { useState } from "react";
import { Link } from "react-router";
import { useExperiments } from "../../api/queries";
import { isPipelineSummary } from "../../api/types";
import { CreatedCell, ListTable, NameCell } from "../../components/ListTable";
import { QueryStates } from "../../components/States";
import { useDocumentTitle } from "../../lib/useDocumentTitle";
import { budgetSummary } from "./commands";
import { CHECKS_PAGE, useChecks } from "./useChecks";
import { VerdictBadge } from "./VerdictBadge";

/** `/checks`: every CI overhead check, newest first, with its verdict. */
export function ChecksPage() {
  useDocumentTitle("CI checks");
  const [limit, setLimit] = useState(CHECKS_PAGE);
  const checks = useChecks(limit);
  // Names and what was measured come from the checks' experiments (the list is usually cached).
  const experiments = useExperiments(null);
  const byId = new Map((experiments.data ?? []).map((e) => [e.id, e]));

  return (
    <>
      <div className="page-head">
        <div>
          <h1>CI checks</h1>
          <p className="muted">
            A baseline against a candidate configuration (or Collector pipeline variant), judged
            against an overhead budget: what <code>tracetax check</code> runs in a CI pipeline.
          </p>
        </div>
        <Link className="button button-primary" to="/checks/new">
          New check
        </Link>
      </div>
      <section className="panel" aria-labelledby="checks-title">
        <h2 id="checks-title" className="visually-hidden">
          All checks
        </h2>
        <QueryStates
          query={checks}
          loading="Loading checks (each verdict is judged from its experiment)…"
          error="Could not load the checks"
          empty={
            <p>
              No checks yet. <Link to="/checks/new">Run the first one</Link>, or run{" "}
              <code>tracetax check</code> from a CI job.
            </p>
          }
        >
          {(list) => (
            <ListTable
              className="checks"
              columns={["Check", "Verdict", "Measures", "Budget", "Created"]}
            >
              {list.map((check) => {
                const experiment = byId.get(check.experiment_id);
                const budget = budgetSummary(check.budget);
                return (
                  <tr key={check.id} data-check={check.id}>
                    <NameCell
                      to={`/checks/${check.id}`}
                      name={experiment?.name ?? `Check ${check.id.slice(0, 8)}`}
                      id={check.id}
                    />
                    <td>
                      {/* The overall verdict: with its judgements against history, what CI exits with. */}
                      <VerdictBadge verdict={check.overall} status={check.status} />
                      {check.strict && <span className="tag">strict</span>}
                    </td>
                    <td>
                      {experiment == null ? (
                        "—"
                      ) : isPipelineSummary(experiment) ? (
                        <span className="subject-pipeline">Collector pipeline</span>
                      ) : (
                        experiment.service
                      )}
                    </td>
                    <td className="small">
                      {budget.length > 0 ? budget.join("; ") : <span className="muted">none</span>}
                    </td>
                    <CreatedCell at={check.created_at} />
                  </tr>
                );
              })}
            </ListTable>
          )}
        </QueryStates>
        {checks.data && checks.data.length >= limit && (
          <p>
            <button
              type="button"
              onClick={() => setLimit((n) => n + CHECKS_PAGE)}
              disabled={checks.isFetching}
            >
              {checks.isFetching ? "Loading…" : `Show ${CHECKS_PAGE} more`}
            </button>
          </p>
        )}
      </section>
    </>
  );
}
