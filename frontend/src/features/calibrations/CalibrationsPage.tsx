import { Link } from "react-router";
import { CreatedCell, ListTable, NameCell, StatusCell } from "../../components/ListTable";
import { describeNoiseFloor } from "../../components/results/overhead";
import { QueryStates } from "../../components/States";
import { useDocumentTitle } from "../../lib/useDocumentTitle";
import { configurationText, loadText } from "./calibrationForm";
import { useCalibrations } from "./useCalibrations";

/** `/calibrations`: every A/A calibration, newest first, with its p99 noise floor. */
export function CalibrationsPage() {
  useDocumentTitle("Calibrations");
  const calibrations = useCalibrations();
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Calibrations</h1>
          <p className="muted">
            An A/A experiment measures one configuration against itself: the spread of the pairs is
            the noise floor, the smallest change this machine can resolve for a service at a load.
            Checks with the same service, baseline and load are held to it: a relative budget
            tighter than it is refused, saying how many rounds would resolve it.
          </p>
        </div>
        <Link className="button button-primary" to="/calibrations/new">
          New calibration
        </Link>
      </div>
      <section className="panel" aria-labelledby="calibrations-title">
        <h2 id="calibrations-title" className="visually-hidden">
          All calibrations
        </h2>
        <QueryStates
          query={calibrations}
          loading="Loading calibrations…"
          error="Could not load the calibrations"
          empty={
            <p>
              No calibrations yet. <Link to="/calibrations/new">Run the first one</Link>, or run{" "}
              <code>tracetax calibrate</code>.
            </p>
          }
        >
          {(list) => (
            <ListTable
              className="calibrations"
              columns={[
                "Calibration",
                "Status",
                "Configuration",
                "Load",
                "p99 noise floor",
                "Created",
              ]}
            >
              {list.map((calibration) => {
                const p99 = describeNoiseFloor(calibration.noise_floor?.p99);
                return (
                  <tr key={calibration.id} data-calibration={calibration.id}>
                    <NameCell
                      to={`/calibrations/${calibration.id}`}
                      name={`${calibration.service} ${calibration.id.slice(0, 8)}`}
                    />
                    <StatusCell status={calibration.status}>
                      {calibration.error && <div className="error small">{calibration.error}</div>}
                    </StatusCell>
                    <td>{configurationText(calibration.signature) ?? "—"}</td>
                    <td className="small">{loadText(calibration.signature) ?? "—"}</td>
                    <td>{p99 ? p99.line : <span className="muted">—</span>}</td>
                    <CreatedCell at={calibration.created_at} />
                  </tr>
                );
              })}
            </ListTable>
          )}
        </QueryStates>
      </section>
    </>
  );
}
