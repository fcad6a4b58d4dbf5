import { lazy, Suspense } from "react";
import { useResults } from "../../api/queries";
import type { Diagnostics, ExperimentResults } from "../../api/types";
import { ComparisonTable } from "../../components/results/ComparisonTable";
import { FlaggedRounds } from "../../components/results/FlaggedRounds";
import { RoundsTable } from "../../components/results/RoundsTable";
import { throughputLimits } from "../../components/results/rounds";
import { SideBySideNotes } from "../../components/results/SideBySideNotes";
import { SpanLedger } from "../../components/results/SpanLedger";
import type { ResultsSubject } from "../../components/results/SubjectResults";
import { useDiagnostics } from "../../components/results/useDiagnostics";
import { Loading } from "../../components/States";
import { concurrencyByConfiguration } from "../../lib/concurrency";
import { CpuChart } from "./CpuChart";
import { PercentilePlot } from "./PercentilePlot";
import { RecommendationPanel } from "./RecommendationPanel";
import { ThreadGroups } from "./ThreadGroups";
import { WhereExportRuns } from "./WhereExportRuns";

// The cost panel (and its chart) loads with the first service results page, not with the app.
const CostPanel = lazy(() =>
  import("./CostPanel").then((module) => ({ default: module.CostPanel })),
);

const SECTIONS = [
  ["comparison-title", "Side by side"],
  ["recommendation-title", "Recommendation"],
  ["cost-title", "Cost"],
  ["percentiles-title", "Latency"],
  ["threads-title", "Threads"],
  ["where-export-title", "Where export runs"],
  ["ledger-title", "Span ledger"],
  ["trace-title", "Sample trace"],
  ["logs-title", "Logs"],
  ["rounds-title", "Rounds"],
] as const;

/**
 * A service's results: the side-by-side table with the diagnostics' overhead intervals, the
 * recommendation, what each configuration costs at the reader's traffic, latency and CPU
 * charts, each thread group's CPU and context switches, where export runs, the span ledger, a
 * sample trace and the logs, and every round.
 */
export const serviceResults: ResultsSubject<ExperimentResults, Diagnostics> = {
  useResults: (experimentId) => useResults(experimentId, true),
  useDiagnostics: (experimentId) => useDiagnostics(experimentId),
  sections: () => SECTIONS,
  comparison: {
    titleId: "comparison-title",
    pending: "Computing the changes against the baseline and the noise floor…",
    errorTitle: "Could not compute the diagnostics (overhead intervals, ledger, recommendation)",
    nothingMeasured:
      "No configuration completed a round, so there is nothing to compare. The rounds below say what went wrong.",
    stackSubject: "service",
    banners: (diagnostics) => <FlaggedRounds flagged={diagnostics.flagged_rounds ?? []} />,
    table: ({ experiment, results, measured, diagnostics, order }) => (
      <>
        <ComparisonTable
          configurations={measured}
          baseline={results.baseline}
          order={order}
          diagnostics={diagnostics.data}
          limits={throughputLimits(results.rounds)}
          concurrency={concurrencyByConfiguration(experiment.spec)}
        />
        <SideBySideNotes
          configurations={measured}
          diagnostics={diagnostics.data}
          totalRounds={new Set(results.rounds.map((round) => round.round_index)).size}
        />
      </>
    ),
  },
  body: ({ experiment, results, measured, order, withDiagnostics }) => (
    <>
      <section className="panel" aria-labelledby="recommendation-title">
        <h2 id="recommendation-title">Recommendation</h2>
        {withDiagnostics((d) => (
          <RecommendationPanel recommendation={d.recommendation} />
        ))}
      </section>
      <section className="panel" aria-labelledby="cost-title">
        <h2 id="cost-title">Cost at your traffic</h2>
        <p className="muted small">
          What each configuration costs a month at your request rate and prices: the service's extra
          cores, the Collector's cores, the network to the Collector and each store, from the CPU
          and telemetry volume measured in every round. Edit the inputs; the link keeps them.
        </p>
        <Suspense fallback={<Loading>Loading the cost panel…</Loading>}>
          <CostPanel experimentId={experiment.id} order={order} />
        </Suspense>
      </section>
      {measured.length > 0 && (
        <div className="chart-grid">
          <section className="panel" aria-labelledby="percentiles-title">
            <h2 id="percentiles-title">Latency by percentile</h2>
            <PercentilePlot configurations={measured} order={order} />
          </section>
          <section className="panel" aria-labelledby="cpu-title">
            <h2 id="cpu-title">CPU over time</h2>
            <CpuChart rounds={results.rounds} order={order} />
          </section>
        </div>
      )}
      <section className="panel" aria-labelledby="threads-title">
        <h2 id="threads-title">Threads</h2>
        <ThreadGroups
          configurations={measured}
          order={order}
          concurrency={concurrencyByConfiguration(experiment.spec)}
        />
      </section>
      <section className="panel" aria-labelledby="where-export-title">
        <h2 id="where-export-title">Where export runs</h2>
        {withDiagnostics((d) => (
          <WhereExportRuns
            experimentId={experiment.id}
            whereExportRuns={d.where_export_runs}
            order={order}
            baseline={results.baseline}
          />
        ))}
      </section>
      <section className="panel" aria-labelledby="ledger-title">
        <h2 id="ledger-title">Span ledger</h2>
        <p className="muted small">
          Where every span, log record and counter increment of each configuration went: expected
          from the requests answered, then through the SDK, the Collector and into the store. Losses
          are marked where they happened; a stage that could not be read is unknown, never zero.
        </p>
        {withDiagnostics((d) => (
          <SpanLedger experimentId={experiment.id} ledger={d.ledger} order={order} />
        ))}
      </section>
    </>
  ),
  telemetry: ({ diagnostics }) => ({ sampleTraces: diagnostics.data?.sample_traces ?? null }),
  rounds: (rounds) => <RoundsTable rounds={rounds} />,
  roundsSoFar: (rounds) => <RoundsTable rounds={rounds} />,
};
