import { Link, useParams } from "react-router";
import { isFinal } from "../../api/types";
import { ErrorState, Loading } from "../../components/States";
import { StatusBadge } from "../../components/StatusBadge";
import { formatDateTime } from "../../lib/format";
import { useDocumentTitle } from "../../lib/useDocumentTitle";
import { configurationText, floorMeaning, loadText } from "./calibrationForm";
import { NoiseFloorTable } from "./NoiseFloorTable";
import { useCalibration } from "./useCalibrations";

/** `/calibrations/:id`: a calibration's noise floor per metric, and what it means for checks. */
export function CalibrationPage() {
  const { id = "" } = useParams();
  const calibration = useCalibration(id);
  useDocumentTitle(`Calibration ${id.slice(0, 8)}`);

  if (calibration.isPending) return <Loading>Loading the calibration…</Loading>;
  if (calibration.isError) {
    return (
      <>
        <div className="page-head">
          <h1>Calibration {id.slice(0, 8)}</h1>
          <Link to="/calibrations">Back to the calibrations</Link>
        </div>
        <ErrorState
          title="Could not load the calibration"
          error={calibration.error}
          onRetry={() => calibration.refetch()}
        />
      </>
    );
  }
  const data = calibration.data;
  const meaning = floorMeaning(data.noise_floor);
  return (
    <>
      <div className="page-head">
        <div>
          <h1>
            Calibration {data.id.slice(0, 8)} <StatusBadge status={data.status} />
          </h1>
          <p className="muted small mono">{data.id}</p>
        </div>
        <Link to="/calibrations">Back to the calibrations</Link>
      </div>
      {data.error && (
        <p className="banner banner-error" role="status">
          {data.error}
        </p>
      )}
      <dl className="spec-summary">
        <div>
          <dt>Service</dt>
          <dd>{data.service}</dd>
        </div>
        <div>
          <dt>Measured twice</dt>
          <dd>{configurationText(data.signature) ?? "—"}</dd>
        </div>
        <div>
          <dt>Load</dt>
          <dd>{loadText(data.signature) ?? "—"}</dd>
        </div>
        <div>
          <dt>Experiment</dt>
          <dd>
            <Link to={`/experiments/${data.experiment_id}`}>{data.experiment_id.slice(0, 8)}</Link>
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatDateTime(data.created_at)}</dd>
        </div>
      </dl>

      <section className="panel" aria-labelledby="floor-title">
        <h2 id="floor-title">Noise floor</h2>
        {!isFinal(data.status) ? (
          <p role="status" className="state state-loading">
            <span className="spinner" aria-hidden="true" />
            The A/A experiment is {data.status}; the noise floor comes when it finishes.{" "}
            <Link to={`/experiments/${data.experiment_id}`}>Watch its progress</Link>
          </p>
        ) : data.noise_floor ? (
          <>
            <NoiseFloorTable floors={data.noise_floor} />
            {meaning ? (
              <p className="floor-meaning" data-testid="floor-meaning">
                A check with <strong>{meaning.rounds} rounds</strong> at this load can resolve
                changes larger than <strong>{meaning.changes.join(", ")}</strong>. A check on{" "}
                {data.service} with this baseline and load that asks for a tighter relative budget
                is refused, saying how many rounds would resolve it; more rounds or a longer phase
                narrow the floor.
              </p>
            ) : (
              <p className="floor-meaning muted">
                No latency or CPU floor could be computed: checks are not held to this calibration.
              </p>
            )}
          </>
        ) : (
          <p className="muted">This calibration has no noise floor.</p>
        )}
      </section>
    </>
  );
}
