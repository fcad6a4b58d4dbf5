import { Link } from "react-router";
import { isFinal, type TuningSummary } from "../../api/types";
import { CreatedCell, ListTable, NameCell, StatusCell } from "../../components/ListTable";
import { QueryStates } from "../../components/States";
import { useDocumentTitle } from "../../lib/useDocumentTitle";
import { useTunings } from "./useTunings";

/** The run's last progress line; once it is over, how many experiments it ran. */
function progressText(tuning: TuningSummary): string {
  const over = isFinal(tuning.status);
  if (tuning.progress && !(over && tuning.progress === "finished")) return tuning.progress;
  if (!over) return "waiting to start";
  const count = tuning.experiment_ids.length;
  return `finished: ${count} experiment${count === 1 ? "" : "s"}`;
}

/** `/tunings`: every tuning run, newest first, with its status and progress. */
export function TuningsPage() {
  useDocumentTitle("Tuning");
  const tunings = useTunings();
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Tuning</h1>
          <p className="muted">
            Searches the batch span processor's settings (OTEL_BSP_*) for a service's traffic within
            a wall-time budget, shows the trade-off between overhead and spans kept, and confirms
            the winner against the SDK defaults by measurement: what <code>tracetax tune</code>{" "}
            runs.
          </p>
        </div>
        <Link className="button button-primary" to="/tunings/new">
          New tuning
        </Link>
      </div>
      <section className="panel" aria-labelledby="tunings-title">
        <h2 id="tunings-title" className="visually-hidden">
          All tunings
        </h2>
        <QueryStates
          query={tunings}
          loading="Loading tunings…"
          error="Could not load the tunings"
          empty={
            <p>
              No tunings yet. <Link to="/tunings/new">Start the first one</Link>, or run{" "}
              <code>tracetax tune SPEC</code>.
            </p>
          }
        >
          {(list) => (
            <ListTable className="tunings" columns={["Tuning", "Status", "Progress", "Created"]}>
              {list.map((tuning) => (
                <tr key={tuning.id} data-tuning={tuning.id}>
                  <NameCell
                    to={`/tunings/${tuning.id}`}
                    name={tuning.name ?? `Tuning ${tuning.id.slice(0, 8)}`}
                    id={tuning.id}
                  />
                  <StatusCell status={tuning.status}>
                    {tuning.error && <div className="error small">{tuning.error}</div>}
                  </StatusCell>
                  <td className="small">{progressText(tuning)}</td>
                  <CreatedCell at={tuning.created_at} />
                </tr>
              ))}
            </ListTable>
          )}
        </QueryStates>
      </section>
    </>
  );
}
