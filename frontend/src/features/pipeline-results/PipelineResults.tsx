import type { ReactNode } from "react";
import type { ExperimentDetail, PipelineDiagnostics } from "../../api/types";
import { Empty, ErrorState, Loading } from "../../components/States";
import { parseApiDate } from "../../lib/format";
import { runRange } from "../../lib/grafana";
import { FlaggedRounds } from "../results/FlaggedRounds";
import { RoundsTable } from "../results/RoundsTable";
import { StackDownRounds } from "../results/StackDownRounds";
import { Telemetry } from "../results/Telemetry";
import { MemoryChart } from "./MemoryChart";
import { PipelineComparisonTable } from "./PipelineComparisonTable";
import { PipelineLedger } from "./PipelineLedger";
import { PipelineRecommendationSection } from "./PipelineRecommendationPanel";
import { sampleTraces } from "./pipelineLedger";
import { hasAdvice } from "./pipelineRecommendation";
import { pipelineRoundColumns, roundRamps } from "./pipelineRounds";
import { RampChart } from "./RampChart";
import { RampPanel } from "./RampPanel";
import { hasRamp } from "./rampChart";
import { SaturatedRounds } from "./SaturatedRounds";
import { usePipelineDiagnostics, usePipelineResults } from "./usePipelineResults";

const MEASURED = "lab Collector";

/**
 * The results of a finished Collector pipeline experiment: the variants side by side with each
 * change against the baseline pipeline and the noise floor, the recommendation (sized for the
 * rate sent, or one typed in), memory over time, the ramp (when there was one: CPU against rate
 * per variant, and each round's steps), where every round's spans went, a sample trace, and
 * every round.
 */
export function PipelineResults({ experiment }: { experiment: ExperimentDetail }) {
  const results = usePipelineResults(experiment.id);
  const diagnostics = usePipelineDiagnostics(experiment.id);
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
  const range = runRange(parseApiDate(experiment.started_at), parseApiDate(experiment.finished_at));
  const recommendation = diagnostics.data?.recommendation;
  const advice = hasAdvice(recommendation);
  const ramps = roundRamps(rounds, order);
  const curves = hasRamp(configurations);

  /** A panel's content that needs the diagnostics; their error is shown once, in the table's panel. */
  const withDiagnostics = (render: (d: PipelineDiagnostics) => ReactNode) => {
    if (diagnostics.data) return render(diagnostics.data);
    if (diagnostics.isError)
      return (
        <p className="muted">Not available: the diagnostics could not be computed (see above).</p>
      );
    return <Loading>Computing the diagnostics…</Loading>;
  };

  const sections: [string, string][] = [
    ["pipeline-comparison-title", "Side by side"],
    ...(advice ? [["pipeline-recommendation-title", "Recommendation"] as [string, string]] : []),
    ["memory-title", "Memory"],
    ...(ramps.length > 0 || curves ? [["ramp-title", "Ramp"] as [string, string]] : []),
    ["pipeline-ledger-title", "Span ledger"],
    ["trace-title", "Sample trace"],
    ["rounds-title", "Rounds"],
  ];

  return (
    <div className="pipeline-results" data-testid="pipeline-results">
      <nav className="page-sections" aria-label="On this page">
        {sections.map(([id, label]) => (
          <a key={id} href={`#${id}`}>
            {label}
          </a>
        ))}
      </nav>
      <section className="panel" aria-labelledby="pipeline-comparison-title">
        <h2 id="pipeline-comparison-title">Side by side</h2>
        {diagnostics.data && (
          <>
            <FlaggedRounds flagged={diagnostics.data.flagged_rounds ?? []} measured={MEASURED} />
            <SaturatedRounds saturated={diagnostics.data.saturated_rounds ?? []} />
          </>
        )}
        <StackDownRounds rounds={rounds} subject="pipeline" />
        {diagnostics.isPending && (
          <Loading>
            Computing the changes against the baseline pipeline and the noise floor…
          </Loading>
        )}
        {diagnostics.isError && (
          <ErrorState
            title="Could not compute the diagnostics (changes against the baseline, ledger)"
            error={diagnostics.error}
            onRetry={() => diagnostics.refetch()}
          />
        )}
        {measured.length === 0 ? (
          <Empty>
            <p>
              No variant completed a round, so there is nothing to compare. The rounds below say
              what went wrong.
            </p>
          </Empty>
        ) : (
          <PipelineComparisonTable
            configurations={measured}
            baseline={baseline}
            order={order}
            diagnostics={diagnostics.data}
          />
        )}
      </section>
      {recommendation && advice && (
        <section className="panel" aria-labelledby="pipeline-recommendation-title">
          <h2 id="pipeline-recommendation-title">Recommendation</h2>
          <PipelineRecommendationSection experimentId={experiment.id} measured={recommendation} />
        </section>
      )}
      {measured.length > 0 && (
        <section className="panel" aria-labelledby="memory-title">
          <h2 id="memory-title">Memory over time</h2>
          <MemoryChart rounds={rounds} order={order} />
        </section>
      )}
      {(ramps.length > 0 || curves) && (
        <section className="panel" aria-labelledby="ramp-title">
          <h2 id="ramp-title">Ramp: the highest rate kept up with</h2>
          {curves && <RampChart configurations={configurations} order={order} />}
          {ramps.length > 0 && <RampPanel ramps={ramps} />}
        </section>
      )}
      <section className="panel" aria-labelledby="pipeline-ledger-title">
        <h2 id="pipeline-ledger-title">Span ledger</h2>
        <p className="muted small">
          Where every span of each round went, from the Collectors' own counters after the drain:
          generated by telemetrygen, accepted by the lab Collector, sent on to the downstream
          Collector(s), then stored in Tempo. Losses are marked where they happened; a sampling
          pipeline's left-out spans are not losses. A stage that could not be read is unknown, never
          zero.
        </p>
        {withDiagnostics((d) => (
          <PipelineLedger
            experimentId={experiment.id}
            ledger={d.ledger}
            order={order}
            range={range}
          />
        ))}
      </section>
      <Telemetry
        experimentId={experiment.id}
        sampleTraces={diagnostics.data ? sampleTraces(diagnostics.data.ledger) : null}
        tracesPending={diagnostics.isPending}
        order={order}
        range={range}
        logs={false}
        noTraces="No sample traces: Tempo had none of this run, or it was not read (see the span ledger)."
      />
      <section className="panel" aria-labelledby="rounds-title">
        <h2 id="rounds-title">Rounds</h2>
        <RoundsTable rounds={rounds} columns={pipelineRoundColumns(rounds)} measured={MEASURED} />
      </section>
    </div>
  );
}
