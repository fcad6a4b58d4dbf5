import { useMemo } from "react";
import { Link, useParams } from "react-router";
import { errorMessage } from "../../api/client";
import { isFinal, type TuningDetail, type TuningOutcome, type TuningReport } from "../../api/types";
import { CancelButton } from "../../components/CancelButton";
import { DetailGate, DetailHead, Fact } from "../../components/DetailPage";
import { StatusBadge } from "../../components/StatusBadge";
import { concurrencyText } from "../../lib/concurrency";
import { formatDateTime, formatDuration, formatNumber, formatSpanRate } from "../../lib/format";
import { useDocumentTitle } from "../../lib/useDocumentTitle";
import { PasteBlock } from "./PasteBlock";
import { TradeoffChart } from "./TradeoffChart";
import { TradeoffTable } from "./TradeoffTable";
import {
  formatKept,
  formatLost,
  formatOverhead,
  formatRss,
  tradeoffPoints,
  UNKNOWN,
} from "./tradeoff";
import {
  budgetsText,
  loadText,
  outOfReachLabel,
  roundsText,
  runExperiments,
  serviceText,
  wallTimeOf,
} from "./tuningFacts";
import { useCancelTuning, useTuning } from "./useTunings";
import "./tunings.css";

const BACK = { to: "/tunings", label: "Back to the tunings" };

/**
 * `/tunings/:id`: a tuning run; while it runs, its progress (polled) and a Cancel button; once
 * finished, the trade-off, and the recommended setting with its confirmation and blocks to paste,
 * or, when nothing met the budgets, which budget is out of reach and what came closest.
 */
export function TuningPage() {
  const { id = "" } = useParams();
  const tuning = useTuning(id);
  useDocumentTitle(`Tuning ${id.slice(0, 8)}`);
  return (
    <DetailGate query={tuning} what="the tuning" heading={`Tuning ${id.slice(0, 8)}`} back={BACK}>
      {(data) => <Tuning data={data} />}
    </DetailGate>
  );
}

function Tuning({ data }: { data: TuningDetail }) {
  const spec = data.spec;
  const wall = wallTimeOf(spec);
  return (
    <>
      <DetailHead
        title={
          <>
            {data.name ?? `Tuning ${data.id.slice(0, 8)}`} <StatusBadge status={data.status} />
          </>
        }
        id={data.id}
        back={BACK}
        error={data.error}
      />
      <dl className="spec-summary">
        <Fact term="Service">{serviceText(spec)}</Fact>
        <Fact term="Launch tuned">
          {typeof spec.processor === "string" ? spec.processor : UNKNOWN}
        </Fact>
        <Fact term="Load">{loadText(spec)}</Fact>
        <Fact term="Concurrency">
          {concurrencyText(spec.concurrency) || "the service's defaults"}
        </Fact>
        <Fact term="Budgets">{budgetsText(spec)}</Fact>
        <Fact term="Rounds">{roundsText(spec)}</Fact>
        <Fact term="Wall time">{wall === null ? UNKNOWN : formatDuration(wall)}</Fact>
        <Fact term="Created">{formatDateTime(data.created_at)}</Fact>
        {data.finished_at && <Fact term="Finished">{formatDateTime(data.finished_at)}</Fact>}
      </dl>

      {!isFinal(data.status) && <Progress data={data} />}
      <Experiments data={data} />

      {data.report ? (
        <Report report={data.report} spec={spec} />
      ) : (
        isFinal(data.status) && (
          <section className="panel" aria-labelledby="report-title">
            <h2 id="report-title">Report</h2>
            <p className="muted">
              {data.status === "completed"
                ? "The run completed without a report."
                : `No report: the run ${data.status === "cancelled" ? "was cancelled" : `is ${data.status}`}. The experiments it finished stay, linked above.`}
            </p>
          </section>
        )
      )}
    </>
  );
}

/** The run's current line (polled) and the way to stop it. */
function Progress({ data }: { data: TuningDetail }) {
  const cancel = useCancelTuning(data.id);
  const line =
    data.progress ??
    (data.status === "queued" ? "Queued: waiting to start…" : "Starting: no progress yet…");
  return (
    <section className="panel live-run" aria-labelledby="progress-title">
      <h2 id="progress-title">Progress</h2>
      <p role="status" data-testid="tuning-progress">
        <span className="spinner" aria-hidden="true" /> {line}
      </p>
      <div className="live-actions">
        <CancelButton mutation={cancel} label="Cancel tuning" doneLabel="Cancelling" />
        <span className="muted small">
          Cancels the running experiment and stops the run; the experiments it finished stay.
        </span>
        {cancel.isError && (
          <p role="alert" className="error">
            Could not cancel: {errorMessage(cancel.error)}
          </p>
        )}
      </div>
    </section>
  );
}

function Experiments({ data }: { data: TuningDetail }) {
  const experiments = runExperiments(data);
  return (
    <section className="panel" aria-labelledby="experiments-title">
      <h2 id="experiments-title">Experiments</h2>
      {experiments.length === 0 ? (
        <p className="muted">None yet: the probe is the first.</p>
      ) : (
        <>
          <p className="muted small">
            Every measurement is an ordinary experiment: each opens with its own results.
          </p>
          <ol className="tuning-experiments">
            {experiments.map(({ id, label }) => (
              <li key={id}>
                <Link to={`/experiments/${id}`}>
                  {label}: <span className="mono">{id.slice(0, 8)}</span>
                </Link>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

function Report({ report, spec }: { report: TuningReport; spec: Record<string, unknown> }) {
  const points = useMemo(() => tradeoffPoints(report), [report]);
  const { measured, choice } = report;
  return (
    <>
      <section className="panel" aria-labelledby="measured-title">
        <h2 id="measured-title">What the probe measured</h2>
        <dl className="spec-summary">
          <Fact term="Spans (mean)">{formatSpanRate(measured.mean_spans_per_s)}</Fact>
          <Fact term="Spans (peak)">{formatSpanRate(measured.peak_spans_per_s)}</Fact>
          <Fact term="One export">
            {measured.export_p99_ms !== null
              ? `${formatNumber(measured.export_p99_ms, 1)} ms`
              : "unknown (the SDK reports no export time; queues are sized on the schedule delay alone)"}
          </Fact>
          <Fact term="Log records (mean)">
            {measured.mean_logs_per_s != null
              ? `${formatNumber(measured.mean_logs_per_s, 0)}/s (peak ${formatNumber(measured.peak_logs_per_s ?? measured.mean_logs_per_s, 0)}/s)`
              : "unknown or none: OTEL_BLRP_* is left at its defaults"}
          </Fact>
        </dl>
      </section>

      <section className="panel" aria-labelledby="tradeoff-title">
        <h2 id="tradeoff-title">The trade-off</h2>
        {points.length === 0 ? (
          <p className="muted">No setting was measured.</p>
        ) : (
          <>
            <TradeoffChart points={points} />
            <TradeoffTable points={points} />
          </>
        )}
      </section>

      {choice?.recommended ? (
        <Recommendation report={report} recommended={choice.recommended} />
      ) : (
        <OutOfReach
          outOfReach={choice?.out_of_reach ?? {}}
          closest={choice?.closest ?? null}
          spec={spec}
        />
      )}
    </>
  );
}

/** A setting's figures in one line, unknown ones said so. */
function figures(outcome: TuningOutcome): string {
  return [
    `p99 overhead ${formatOverhead(outcome.p99_overhead_pct)}`,
    `CPU overhead ${formatOverhead(outcome.cpu_overhead_pct)}`,
    `spans kept ${formatKept(outcome.kept)}`,
    `spans lost in the SDK ${formatLost(outcome.lost_spans)}`,
    `memory ${formatRss(outcome.rss_mib)}`,
  ].join(", ");
}

const BLOCKS = [
  {
    key: "env",
    title: "Environment variables",
    hint: "For a shell, a .env file or a Dockerfile's ENV.",
  },
  {
    key: "java",
    title: "Java system properties",
    hint: "The SDK's own property names, for JAVA_TOOL_OPTIONS or the java command line.",
  },
  {
    key: "kubernetes",
    title: "Kubernetes env",
    hint: "A container's env: list, for its spec in a Deployment.",
  },
] as const;

function Recommendation({
  report,
  recommended,
}: {
  report: TuningReport;
  recommended: TuningOutcome;
}) {
  const blocks = BLOCKS.filter((block) => report.paste?.[block.key] != null);
  return (
    <section className="panel" aria-labelledby="recommendation-title">
      <h2 id="recommendation-title">Recommendation</h2>
      <p data-testid="recommended">
        Set <strong className="mono">{recommended.name}</strong>
        {recommended.sampled && <span className="tag">sampled</span>}: it meets every budget, and of
        the settings that reached the last rung (measured the longest) it has the least p99 overhead
        ({figures(recommended)}).
        {recommended.sampled &&
          " No unsampled setting met the budgets: this one keeps only a share of the traces (head sampling)."}
      </p>
      <h3>Confirmation</h3>
      <p data-testid="verdict">
        Against the SDK defaults, in the confirmation's interleaved rounds:{" "}
        <strong>{report.verdict ?? UNKNOWN}</strong>.{" "}
        {report.confirmation_id ? (
          <Link to={`/experiments/${report.confirmation_id}`}>
            The confirmation experiment ({report.confirmation_id.slice(0, 8)})
          </Link>
        ) : (
          <span className="muted">No confirmation experiment is recorded.</span>
        )}
      </p>
      <h3>To paste</h3>
      {blocks.length === 0 ? (
        <p className="muted">No blocks to paste were stored with this run.</p>
      ) : (
        blocks.map((block) => (
          <PasteBlock
            key={block.key}
            title={block.title}
            hint={block.hint}
            text={report.paste?.[block.key] ?? ""}
            testId={`paste-${block.key}`}
          />
        ))
      )}
    </section>
  );
}

/** Nothing met the budgets: which is out of reach, and the closest setting measured. */
function OutOfReach({
  outOfReach,
  closest,
  spec,
}: {
  outOfReach: Record<string, string>;
  closest: TuningOutcome | null;
  spec: Record<string, unknown>;
}) {
  const entries = Object.entries(outOfReach);
  return (
    <section className="panel" aria-labelledby="out-of-reach-title" data-testid="out-of-reach">
      <h2 id="out-of-reach-title">No setting met the budgets</h2>
      <p>
        No measured setting meets every budget, so none is recommended and there is nothing to
        paste: loosen a budget, or give the run more wall time to measure longer.
      </p>
      {entries.length > 0 && (
        <ul className="out-of-reach">
          {entries.map(([key, sentence]) => (
            <li key={key} data-budget={key}>
              <strong>{outOfReachLabel(key, spec)}</strong>: {sentence}
            </li>
          ))}
        </ul>
      )}
      <h3>Closest setting measured</h3>
      {closest ? (
        <p data-testid="closest">
          <strong className="mono">{closest.name}</strong>
          {closest.sampled && <span className="tag">sampled</span>} ({figures(closest)}). It misses
          a budget: shown for reference, not recommended.
        </p>
      ) : (
        <p className="muted">No setting was measured.</p>
      )}
    </section>
  );
}
