import { useNavigate, useParams } from "react-router";
import { useExperiment } from "../api/queries";
import { type ExperimentDetail, isFinal } from "../api/types";
import { DetailGate } from "../components/DetailPage";
import { EXPERIMENTS, ExperimentHeader } from "../features/experiment/ExperimentHeader";
import { DeleteExperimentButton } from "../features/experiments/DeleteExperimentButton";
import { RunAgainButton } from "../features/experiments/RunAgainButton";
import { LiveRun } from "../features/live-run/LiveRun";
import { useDocumentTitle } from "../lib/useDocumentTitle";
import { ExperimentResults, RoundsSoFar } from "./ExperimentResults";

/**
 * `/experiments/:id`: live progress while queued or running, the results once finished: a
 * service's, or a Collector pipeline's when the spec's subject is "collector".
 */
export function ExperimentPage() {
  const { id = "" } = useParams();
  const experiment = useExperiment(id);
  const title = experiment.data?.name || `Experiment ${id.slice(0, 8)}`;
  useDocumentTitle(title);
  return (
    <DetailGate
      query={experiment}
      what="the experiment"
      heading={`Experiment ${id.slice(0, 8)}`}
      back={EXPERIMENTS}
    >
      {(data) => <Experiment data={data} />}
    </DetailGate>
  );
}

function Experiment({ data }: { data: ExperimentDetail }) {
  const navigate = useNavigate();
  return (
    <>
      <ExperimentHeader experiment={data} />
      {isFinal(data.status) && (
        <div className="page-actions">
          <RunAgainButton
            experiment={data}
            onQueued={(again) => navigate(`/experiments/${again}`)}
          />
          <DeleteExperimentButton experiment={data} onDeleted={() => navigate("/")} />
        </div>
      )}
      {isFinal(data.status) ? (
        <ExperimentResults experiment={data} />
      ) : (
        <>
          <LiveRun experiment={data} />
          <section className="panel" aria-labelledby="rounds-so-far-title">
            <h2 id="rounds-so-far-title">Rounds so far</h2>
            <RoundsSoFar experiment={data} />
          </section>
        </>
      )}
    </>
  );
}
