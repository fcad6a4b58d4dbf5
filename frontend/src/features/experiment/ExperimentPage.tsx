import { Link, useParams } from "react-router";
import { useExperiment } from "../../api/queries";
import { isFinal } from "../../api/types";
import { ErrorState, Loading } from "../../components/States";
import { useDocumentTitle } from "../../lib/useDocumentTitle";
import { LiveRun } from "../live-run/LiveRun";
import { Results } from "../results/Results";
import { RoundsTable } from "../results/RoundsTable";
import { ExperimentHeader } from "./ExperimentHeader";

/** `/experiments/:id`: live progress while queued or running, the results once finished. */
export function ExperimentPage() {
  const { id = "" } = useParams();
  const experiment = useExperiment(id);
  const title = experiment.data?.name || `Experiment ${id.slice(0, 8)}`;
  useDocumentTitle(title);

  if (experiment.isPending) return <Loading>Loading the experiment…</Loading>;
  if (experiment.isError) {
    return (
      <>
        <div className="page-head">
          <h1>Experiment {id.slice(0, 8)}</h1>
          <Link to="/">Back to the experiments</Link>
        </div>
        <ErrorState
          title="Could not load the experiment"
          error={experiment.error}
          onRetry={() => experiment.refetch()}
        />
      </>
    );
  }
  const data = experiment.data;
  const finished = isFinal(data.status);
  return (
    <>
      <ExperimentHeader experiment={data} />
      {finished ? (
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
