import type { PipelineDiagnostics, PipelineResults } from "../../api/types";
import { FlaggedRounds } from "../../components/results/FlaggedRounds";
import { RoundsTable } from "../../components/results/RoundsTable";
import type { ResultsContext, ResultsSubject } from "../../components/results/SubjectResults";
import { MemoryChart } from "./MemoryChart";
import { PipelineComparisonTable } from "./PipelineComparisonTable";
import { PipelineLedger } from "./PipelineLedger";
import { PipelineRecommendationSection } from "./PipelineRecommendationPanel";
import { PipelineSideBySideNotes } from "./PipelineSideBySideNotes";
import { sampleTraces } from "./pipelineLedger";
import { hasAdvice } from "./pipelineRecommendation";
import { pipelineRoundColumns, roundRamps } from "./pipelineRounds";
import { RampChart } from "./RampChart";
import { RampPanel } from "./RampPanel";
import { hasRamp } from "./rampChart";
import { SaturatedRounds } from "./SaturatedRounds";
import { usePipelineDiagnostics, usePipelineResults } from "./usePipelineResults";

const MEASURED = "lab Collector";

type Context = ResultsContext<PipelineResults, PipelineDiagnostics>;

/** The sections that show only when there is something in them. */
function shown({ results, diagnostics, order }: Context) {
  const recommendation = diagnostics.data?.recommendation;
  const ramps = roundRamps(results.rounds, order);
  const curves = hasRamp(results.configurations);
  return {
    recommendation: hasAdvice(recommendation) ? recommendation : undefined,
    ramps,
    curves,
    ramp: ramps.length > 0 || curves,
  };
}

/**
 * A Collector pipeline's results: the variants side by side with each change against the
 * baseline pipeline and the noise floor, the recommendation (sized for the rate sent, or one
 * typed in), memory over time, the ramp (when there was one: CPU against rate per variant, and
 * each round's steps), where every round's spans went, a sample trace, and every round.
 */
export const collectorResults: ResultsSubject<PipelineResults, PipelineDiagnostics> = {
  useResults: (experimentId) => usePipelineResults(experimentId),
  useDiagnostics: (experimentId) => usePipelineDiagnostics(experimentId),
  sections: (context) => {
    const { recommendation, ramp } = shown(context);
    return [
      ["pipeline-comparison-title", "Side by side"],
      ...(recommendation ? [["pipeline-recommendation-title", "Recommendation"] as const] : []),
      ["memory-title", "Memory"],
      ...(ramp ? [["ramp-title", "Ramp"] as const] : []),
      ["pipeline-ledger-title", "Span ledger"],
      ["trace-title", "Sample trace"],
      ["rounds-title", "Rounds"],
    ];
  },
  comparison: {
    titleId: "pipeline-comparison-title",
    pending: "Computing the changes against the baseline pipeline and the noise floor…",
    errorTitle: "Could not compute the diagnostics (changes against the baseline, ledger)",
    nothingMeasured:
      "No variant completed a round, so there is nothing to compare. The rounds below say what went wrong.",
    stackSubject: "pipeline",
    banners: (diagnostics) => (
      <>
        <FlaggedRounds flagged={diagnostics.flagged_rounds ?? []} measured={MEASURED} />
        <SaturatedRounds saturated={diagnostics.saturated_rounds ?? []} />
      </>
    ),
    table: ({ results, measured, diagnostics, order }) => (
      <>
        <PipelineComparisonTable
          configurations={measured}
          baseline={results.baseline}
          order={order}
          diagnostics={diagnostics.data}
        />
        <PipelineSideBySideNotes
          configurations={measured}
          diagnostics={diagnostics.data}
          totalRounds={new Set(results.rounds.map((round) => round.round_index)).size}
        />
      </>
    ),
  },
  body: (context) => {
    const { experiment, results, measured, order, range, withDiagnostics } = context;
    const { recommendation, ramps, curves, ramp } = shown(context);
    return (
      <>
        {recommendation && (
          <section className="panel" aria-labelledby="pipeline-recommendation-title">
            <h2 id="pipeline-recommendation-title">Recommendation</h2>
            <PipelineRecommendationSection experimentId={experiment.id} measured={recommendation} />
          </section>
        )}
        {measured.length > 0 && (
          <section className="panel" aria-labelledby="memory-title">
            <h2 id="memory-title">Memory over time</h2>
            <MemoryChart rounds={results.rounds} order={order} />
          </section>
        )}
        {ramp && (
          <section className="panel" aria-labelledby="ramp-title">
            <h2 id="ramp-title">Ramp: the highest rate kept up with</h2>
            {curves && <RampChart configurations={results.configurations} order={order} />}
            {ramps.length > 0 && <RampPanel ramps={ramps} />}
          </section>
        )}
        <section className="panel" aria-labelledby="pipeline-ledger-title">
          <h2 id="pipeline-ledger-title">Span ledger</h2>
          <p className="muted small">
            Where every span of each round went, from the Collectors' own counters after the drain:
            generated by telemetrygen, accepted by the lab Collector, sent on to the downstream
            Collector(s), then stored in Tempo. Losses are marked where they happened; a sampling
            pipeline's left-out spans are not losses. A stage that could not be read is unknown,
            never zero.
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
      </>
    );
  },
  telemetry: ({ diagnostics }) => ({
    sampleTraces: diagnostics.data ? sampleTraces(diagnostics.data.ledger) : null,
    logs: false,
    noTraces:
      "No sample traces: Tempo had none of this run, or it was not read (see the span ledger).",
  }),
  rounds: (rounds) => (
    <RoundsTable rounds={rounds} columns={pipelineRoundColumns(rounds)} measured={MEASURED} />
  ),
  // A round's summary carries no pipeline figures: they come with the results.
  roundsSoFar: (rounds) => <RoundsTable rounds={rounds} columns={[]} measured={MEASURED} />,
  wrap: (page) => (
    <div className="pipeline-results" data-testid="pipeline-results">
      {page}
    </div>
  ),
};
