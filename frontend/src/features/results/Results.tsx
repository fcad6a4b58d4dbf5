import { lazy, type ReactNode, Suspense } from "react";
import { useResults } from "../../api/queries";
import type { Diagnostics, ExperimentDetail } from "../../api/types";
import { Empty, ErrorState, Loading } from "../../components/States";
import { concurrencyByConfiguration } from "../../lib/concurrency";
import { parseApiDate } from "../../lib/format";
import { runRange } from "../../lib/grafana";
import { ComparisonTable } from "./ComparisonTable";
import { CpuChart } from "./CpuChart";
import { FlaggedRounds } from "./FlaggedRounds";
import { PercentilePlot } from "./PercentilePlot";
import { RecommendationPanel } from "./RecommendationPanel";
import { RoundsTable } from "./RoundsTable";
import { throughputLimits } from "./rounds";
import { SpanLedger } from "./SpanLedger";
import { StackDownRounds } from "./StackDownRounds";
import { Telemetry } from "./Telemetry";
import { ThreadGroups } from "./ThreadGroups";
import { useDiagnostics } from "./useDiagnostics";
import { WhereExportRuns } from "./WhereExportRuns";

// The cost panel (and its chart) loads with the first service results page, not with the app.
const CostPanel = lazy(() =>
  import("../cost/CostPanel").then((module) => ({ default: module.CostPanel })),
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
 * The results of a finished experiment: the side-by-side table with the diagnostics'
 * overhead intervals, the recommendation, what each configuration costs at the reader's
 * traffic, latency and CPU charts, each thread group's CPU and context switches, where export runs, the span ledger, a sample trace and the
 * logs, and every round.
 */
export function Results({ experiment }: { experiment: ExperimentDetail }) {
  const results = useResults(experiment.id, true);
  const diagnostics = useDiagnostics(experiment.id);
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
  const concurrency = concurrencyByConfiguration(experiment.spec);
  const range = runRange(parseApiDate(experiment.started_at), parseApiDate(experiment.finished_at));

  /** A panel's content that needs the diagnostics; their error is shown once, in the table's panel. */
  const withDiagnostics = (render: (d: Diagnostics) => ReactNode) => {
    if (diagnostics.data) return render(diagnostics.data);
    if (diagnostics.isError)
      return (
        <p className="muted">Not available: the diagnostics could not be computed (see above).</p>
      );
    return <Loading>Computing the diagnostics…</Loading>;
  };

  return (
    <>
      <nav className="page-sections" aria-label="On this page">
        {SECTIONS.map(([id, label]) => (
          <a key={id} href={`#${id}`}>
            {label}
          </a>
        ))}
      </nav>
      <section className="panel" aria-labelledby="comparison-title">
        <h2 id="comparison-title">Side by side</h2>
        {diagnostics.data && <FlaggedRounds flagged={diagnostics.data.flagged_rounds ?? []} />}
        <StackDownRounds rounds={rounds} />
        {diagnostics.isPending && (
          <Loading>Computing the changes against the baseline and the noise floor…</Loading>
        )}
        {diagnostics.isError && (
          <ErrorState
            title="Could not compute the diagnostics (overhead intervals, ledger, recommendation)"
            error={diagnostics.error}
            onRetry={() => diagnostics.refetch()}
          />
        )}
        {measured.length === 0 ? (
          <Empty>
            <p>
              No configuration completed a round, so there is nothing to compare. The rounds below
              say what went wrong.
            </p>
          </Empty>
        ) : (
          <ComparisonTable
            configurations={measured}
            baseline={baseline}
            order={order}
            diagnostics={diagnostics.data}
            limits={throughputLimits(rounds)}
            concurrency={concurrency}
          />
        )}
      </section>
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
            <CpuChart rounds={rounds} order={order} />
          </section>
        </div>
      )}
      <section className="panel" aria-labelledby="threads-title">
        <h2 id="threads-title">Threads</h2>
        <ThreadGroups configurations={measured} order={order} concurrency={concurrency} />
      </section>
      <section className="panel" aria-labelledby="where-export-title">
        <h2 id="where-export-title">Where export runs</h2>
        {withDiagnostics((d) => (
          <WhereExportRuns
            experimentId={experiment.id}
            whereExportRuns={d.where_export_runs}
            order={order}
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
      <Telemetry
        experimentId={experiment.id}
        sampleTraces={diagnostics.data?.sample_traces ?? null}
        tracesPending={diagnostics.isPending}
        order={order}
        range={range}
      />
      <section className="panel" aria-labelledby="rounds-title">
        <h2 id="rounds-title">Rounds</h2>
        <RoundsTable rounds={rounds} />
      </section>
    </>
  );
}
