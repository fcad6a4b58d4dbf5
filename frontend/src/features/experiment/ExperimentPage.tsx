import { useParams } from "react-router";
import { useExperiment } from "../../api/queries";
import { type ExperimentDetail, isFinal } from "../../api/types";
import { DetailGate } from "../../components/DetailPage";
import { useDocumentTitle } from "../../lib/useDocumentTitle";
import { LiveRun } from "../live-run/LiveRun";
import { Results } from "../results/Results";
import { RoundsTable } from "../results/RoundsTable";
import { EXPERIMENTS, ExperimentHeader } from "./ExperimentHeader";

/** `/experiments/:id`: live progress while queued or running, the results once finished. */
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
  return (
    <>
      <ExperimentHeader experiment={data} />
      {isFinal(data.status) ? (
        <Results experiment={data} />
      ) : (
        <>
          <LiveRun experiment={data} />
          <section className="panel" aria-labelledby="rounds-so-far-title">
            <h2 id="rounds-so-far-title">Rounds so far</h2>
            <RoundsTable rounds={data.rounds} />
          </section>
        </>
      )}
    </>
  );
}
