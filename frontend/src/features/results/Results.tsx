import { useResults } from "../../api/queries";
import type { ExperimentDetail } from "../../api/types";
import { Empty, ErrorState, Loading } from "../../components/States";
import { ComparisonTable } from "./ComparisonTable";
import { CpuChart } from "./CpuChart";
import { PercentilePlot } from "./PercentilePlot";
import { RoundsTable } from "./RoundsTable";

/** The results of a finished experiment: comparison, percentile plot, CPU, rounds. */
export function Results({ experiment }: { experiment: ExperimentDetail }) {
  const results = useResults(experiment.id, true);
  const order = experiment.configurations;

  if (results.isPending) return <Loading>Loading the results…</Loading>;
  if (results.isError) {
    return (
      <ErrorState
        title="Could not load the results"
        error={results.error}
        onRetry={() => results.refetch()}
      />
    );
  }
  const { configurations, rounds, baseline } = results.data;
  const measured = configurations.filter((c) => c.rounds_completed > 0);

  return (
    <>
      <section className="panel" aria-labelledby="comparison-title">
        <h2 id="comparison-title">Side by side</h2>
        {measured.length === 0 ? (
          <Empty>
            <p>
              No configuration completed a round, so there is nothing to compare. The rounds below
              say what went wrong.
            </p>
          </Empty>
        ) : (
          <ComparisonTable configurations={measured} baseline={baseline} order={order} />
        )}
      </section>
      {measured.length > 0 && (
        <div className="chart-grid">
          <section className="panel" aria-labelledby="percentiles-title">
            <h2 id="percentiles-title">Latency by percentile</h2>
            <PercentilePlot configurations={measured} order={order} />
          </section>
          <section className="panel" aria-labelledby="cpu-title">
            <h2 id="cpu-title">CPU over time</h2>
            <CpuChart rounds={rounds} order={order} />
          </section>
        </div>
      )}
      <section className="panel" aria-labelledby="rounds-title">
        <h2 id="rounds-title">Rounds</h2>
        <RoundsTable rounds={rounds} />
      </section>
    </>
  );
}
