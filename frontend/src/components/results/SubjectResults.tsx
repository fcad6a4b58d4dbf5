// The one results page of a finished experiment, whatever its subject (a service, a Collector
// pipeline): the frame every subject shares (loading, the table of contents, the side-by-side
// panel with its interference and stack-down banners and the diagnostics' state, a sample trace,
// every round), and the subject's own sections in between. A subject says only what differs
// (ResultsSubject); the app picks it by the spec's subject (app/ExperimentResults.tsx).

import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import type { ExperimentDetail, RoundRaw, RoundSummary } from "../../api/types";
import { parseApiDate } from "../../lib/format";
import { runRange, type TimeRange } from "../../lib/grafana";
import { Empty, ErrorState, Loading } from "../States";
import { StackDownRounds } from "./StackDownRounds";
import type { StackSubject } from "./stackHealth";
import { Telemetry } from "./Telemetry";
import "./results.css";

/** What every subject's results have: per-configuration aggregates and every round. */
export interface SubjectResultsData {
  baseline: string;
  configurations: readonly { rounds_completed: number }[];
  rounds: RoundRaw[];
}

/** What every subject's diagnostics have: the rounds another process interfered with. */
export interface SubjectDiagnosticsData {
  flagged_rounds?: string[] | null;
}

/** What a subject's sections are given. */
export interface ResultsContext<R extends SubjectResultsData, D extends SubjectDiagnosticsData> {
  experiment: ExperimentDetail;
  results: R;
  /** The configurations (variants) that completed at least one round. */
  measured: R["configurations"][number][];
  diagnostics: UseQueryResult<D>;
  /** The configurations (variants) in the spec's order. */
  order: string[];
  /** The run's time range, for Grafana links and the logs. */
  range: TimeRange;
  /** A panel's content that needs the diagnostics; their error is shown once, in the table's panel. */
  withDiagnostics: (render: (diagnostics: D) => ReactNode) => ReactNode;
}

/** One subject's part of the results page. */
export interface ResultsSubject<R extends SubjectResultsData, D extends SubjectDiagnosticsData> {
  useResults(experimentId: string): UseQueryResult<R>;
  useDiagnostics(experimentId: string): UseQueryResult<D>;
  /** The table of contents: each section's heading id and label. */
  sections(context: ResultsContext<R, D>): readonly (readonly [string, string])[];
  comparison: {
    titleId: string;
    /** Shown while the diagnostics are computed. */
    pending: string;
    errorTitle: string;
    /** Shown when nothing completed a round. */
    nothingMeasured: string;
    stackSubject: StackSubject;
    /** The banners the diagnostics raise (interference, saturation). */
    banners(diagnostics: D): ReactNode;
    table(context: ResultsContext<R, D>): ReactNode;
  };
  /** The subject's own sections, between the side-by-side panel and the sample trace. */
  body(context: ResultsContext<R, D>): ReactNode;
  /** Sample traces by configuration, and how the telemetry panel reads for this subject. */
  telemetry(context: ResultsContext<R, D>): {
    sampleTraces: Record<string, string[]> | null;
    logs?: boolean;
    noTraces?: string;
  };
  /** Every round's table once finished (each round with its samples). */
  rounds(rounds: RoundRaw[]): ReactNode;
  /** The rounds so far, while the experiment runs (summaries: no samples yet). */
  roundsSoFar(rounds: RoundSummary[]): ReactNode;
  /** Wraps the page (a subject's own class or test id); none: as is. */
  wrap?(page: ReactNode): ReactNode;
}

export function SubjectResults<R extends SubjectResultsData, D extends SubjectDiagnosticsData>({
  experiment,
  subject,
}: {
  experiment: ExperimentDetail;
  subject: ResultsSubject<R, D>;
}) {
  const results = subject.useResults(experiment.id);
  const diagnostics = subject.useDiagnostics(experiment.id);

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
  const context: ResultsContext<R, D> = {
    experiment,
    results: results.data,
    measured: results.data.configurations.filter((c) => c.rounds_completed > 0),
    diagnostics,
    order: experiment.configurations,
    range: runRange(parseApiDate(experiment.started_at), parseApiDate(experiment.finished_at)),
    withDiagnostics: (render) => {
      if (diagnostics.data) return render(diagnostics.data);
      if (diagnostics.isError)
        return (
          <p className="muted">Not available: the diagnostics could not be computed (see above).</p>
        );
      return <Loading>Computing the diagnostics…</Loading>;
    },
  };
  const { comparison } = subject;
  const page = (
    <>
      <nav className="page-sections" aria-label="On this page">
        {subject.sections(context).map(([id, label]) => (
          <a key={id} href={`#${id}`}>
            {label}
          </a>
        ))}
      </nav>
      <section className="panel" aria-labelledby={comparison.titleId}>
        <h2 id={comparison.titleId}>Side by side</h2>
        {diagnostics.data && comparison.banners(diagnostics.data)}
        <StackDownRounds rounds={results.data.rounds} subject={comparison.stackSubject} />
        {diagnostics.isPending && <Loading>{comparison.pending}</Loading>}
        {diagnostics.isError && (
          <ErrorState
            title={comparison.errorTitle}
            error={diagnostics.error}
            onRetry={() => diagnostics.refetch()}
          />
        )}
        {context.measured.length === 0 ? (
          <Empty>
            <p>{comparison.nothingMeasured}</p>
          </Empty>
        ) : (
          comparison.table(context)
        )}
      </section>
      {subject.body(context)}
      <Telemetry
        experimentId={experiment.id}
        tracesPending={diagnostics.isPending}
        order={context.order}
        range={context.range}
        {...subject.telemetry(context)}
      />
      <section className="panel" aria-labelledby="rounds-title">
        <h2 id="rounds-title">Rounds</h2>
        {subject.rounds(results.data.rounds)}
      </section>
    </>
  );
  return subject.wrap ? subject.wrap(page) : page;
}
