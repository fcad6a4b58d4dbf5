import { Link } from "react-router";
import { Empty, ErrorState, Loading } from "../../components/States";
import { StatusBadge } from "../../components/StatusBadge";
import { formatDateTime } from "../../lib/format";
import { useDocumentTitle } from "../../lib/useDocumentTitle";
import { describeNoiseFloor } from "../results/overhead";
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
        {calibrations.isPending && <Loading>Loading calibrations…</Loading>}
        {calibrations.isError && (
          <ErrorState
            title="Could not load the calibrations"
            error={calibrations.error}
            onRetry={() => calibrations.refetch()}
          />
        )}
        {calibrations.data?.length === 0 && (
          <Empty>
            <p>
              No calibrations yet. <Link to="/calibrations/new">Run the first one</Link>, or run{" "}
              <code>tracetax calibrate</code>.
            </p>
          </Empty>
        )}
        {calibrations.data && calibrations.data.length > 0 && (
          <div className="table-scroll">
            <table className="calibrations">
              <thead>
                <tr>
                  <th scope="col">Calibration</th>
                  <th scope="col">Status</th>
                  <th scope="col">Configuration</th>
                  <th scope="col">Load</th>
                  <th scope="col">p99 noise floor</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {calibrations.data.map((calibration) => {
                  const p99 = describeNoiseFloor(calibration.noise_floor?.p99);
                  return (
                    <tr key={calibration.id} data-calibration={calibration.id}>
                      <th scope="row">
                        <Link to={`/calibrations/${calibration.id}`}>
                          {calibration.service} {calibration.id.slice(0, 8)}
                        </Link>
                      </th>
                      <td>
                        <StatusBadge status={calibration.status} />
                        {calibration.error && (
                          <div className="error small">{calibration.error}</div>
                        )}
                      </td>
                      <td>{configurationText(calibration.signature) ?? "—"}</td>
                      <td className="small">{loadText(calibration.signature) ?? "—"}</td>
                      <td>{p99 ? p99.line : <span className="muted">—</span>}</td>
                      <td>
                        <time dateTime={calibration.created_at}>
                          {formatDateTime(calibration.created_at)}
                        </time>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
