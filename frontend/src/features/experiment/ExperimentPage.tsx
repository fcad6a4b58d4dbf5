import { useNavigate, useParams } from "react-router";
import { useExperiment } from "../../api/queries";
import { type ExperimentDetail, isFinal, isPipelineExperiment } from "../../api/types";
import { DetailGate } from "../../components/DetailPage";
import { useDocumentTitle } from "../../lib/useDocumentTitle";
import { DeleteExperimentButton } from "../experiments/DeleteExperimentButton";
import { LiveRun } from "../live-run/LiveRun";
import { PipelineResults } from "../pipeline-results/PipelineResults";
import { Results } from "../results/Results";
import { RoundsTable } from "../results/RoundsTable";
import { EXPERIMENTS, ExperimentHeader } from "./ExperimentHeader";

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
  const pipeline = isPipelineExperiment(data);
  const navigate = useNavigate();
  return (
    <>
      <ExperimentHeader experiment={data} />
      {isFinal(data.status) && (
        <div className="page-actions">
          <DeleteExperimentButton experiment={data} onDeleted={() => navigate("/")} />
        </div>
      )}
      {isFinal(data.status) ? (
        pipeline ? (
          <PipelineResults experiment={data} />
        ) : (
          <Results experiment={data} />
        )
      ) : (
        <>
          <LiveRun experiment={data} />
          <section className="panel" aria-labelledby="rounds-so-far-title">
            <h2 id="rounds-so-far-title">Rounds so far</h2>
            {pipeline ? (
              // A round's summary carries no pipeline figures: they come with the results.
              <RoundsTable rounds={data.rounds} columns={[]} measured="lab Collector" />
            ) : (
              <RoundsTable rounds={data.rounds} />
            )}
          </section>
        </>
      )}
    </>
  );
}
