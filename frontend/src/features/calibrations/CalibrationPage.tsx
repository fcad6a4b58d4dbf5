import { Link, useParams } from "react-router";
import type { CalibrationStatus } from "../../api/types";
import { DetailGate, DetailHead, Fact, OnceFinal } from "../../components/DetailPage";
import { StatusBadge } from "../../components/StatusBadge";
import { formatDateTime } from "../../lib/format";
import { useDocumentTitle } from "../../lib/useDocumentTitle";
import { configurationText, floorMeaning, loadText } from "./calibrationForm";
import { NoiseFloorTable } from "./NoiseFloorTable";
import { useCalibration } from "./useCalibrations";
import "./calibrations.css";

const BACK = { to: "/calibrations", label: "Back to the calibrations" };

/** `/calibrations/:id`: a calibration's noise floor per metric, and what it means for checks. */
export function CalibrationPage() {
  const { id = "" } = useParams();
  const calibration = useCalibration(id);
  useDocumentTitle(`Calibration ${id.slice(0, 8)}`);
  return (
    <DetailGate
      query={calibration}
      what="the calibration"
      heading={`Calibration ${id.slice(0, 8)}`}
      back={BACK}
    >
      {(data) => <Calibration data={data} />}
    </DetailGate>
  );
}

function Calibration({ data }: { data: CalibrationStatus }) {
  const meaning = floorMeaning(data.noise_floor);
  return (
    <>
      <DetailHead
        title={
          <>
            Calibration {data.id.slice(0, 8)} <StatusBadge status={data.status} />
          </>
        }
        id={data.id}
        back={BACK}
        error={data.error}
      />
      <dl className="spec-summary">
        <Fact term="Service">{data.service}</Fact>
        <Fact term="Measured twice">{configurationText(data.signature) ?? "—"}</Fact>
        <Fact term="Load">{loadText(data.signature) ?? "—"}</Fact>
        <Fact term="Experiment">
          <Link to={`/experiments/${data.experiment_id}`}>{data.experiment_id.slice(0, 8)}</Link>
        </Fact>
        <Fact term="Created">{formatDateTime(data.created_at)}</Fact>
      </dl>

      <section className="panel" aria-labelledby="floor-title">
        <h2 id="floor-title">Noise floor</h2>
        <OnceFinal
          status={data.status}
          experimentId={data.experiment_id}
          subject="The A/A experiment"
          outcome="the noise floor"
        >
          {data.noise_floor ? (
            <>
              <NoiseFloorTable floors={data.noise_floor} />
              {meaning ? (
                <p className="floor-meaning" data-testid="floor-meaning">
                  A check with <strong>{meaning.rounds} rounds</strong> at this load can resolve
                  changes larger than <strong>{meaning.changes.join(", ")}</strong>. A check on{" "}
                  {data.service} with this baseline and load that asks for a tighter relative budget
                  is refused, saying how many rounds would resolve it. More rounds narrow the floor;
                  for CPU per request, RSS and p50 so do more instances side by side (what differs
                  between two fresh processes averages out), for the tails a longer phase.
                </p>
              ) : (
                <p className="floor-meaning muted">
                  No latency or CPU floor could be computed: checks are not held to this
                  calibration.
                </p>
              )}
            </>
          ) : (
            <p className="muted">This calibration has no noise floor.</p>
          )}
        </OnceFinal>
      </section>
    </>
  );
}
