import { useState } from "react";
import { Link, useParams } from "react-router";
import { useExperiment } from "../../api/queries";
import {
  type BudgetLine,
  type CheckStatus,
  type CliCommand,
  COLLECTOR_SUBJECT,
  type ExperimentDetail,
  isPipelineExperiment,
  type PipelineSpec,
  type VariantSpec,
} from "../../api/types";
import { DetailGate, DetailHead, Fact, OnceFinal } from "../../components/DetailPage";
import { DownloadLink } from "../../components/DownloadLink";
import { formatP } from "../../components/results/overhead";
import { ErrorState, Loading } from "../../components/States";
import {
  formatDateTime,
  formatInterval,
  formatNumber,
  formatSpanRate,
  MISSING,
} from "../../lib/format";
import { useDocumentTitle } from "../../lib/useDocumentTitle";
import { CheckLinks, CheckVerdict, HistoryJudgements, ProvenanceFacts } from "./CheckHistory";
import {
  budgetLabel,
  budgetLimit,
  budgetMeasure,
  budgetSetsNone,
  COUNT_LINES,
  checkVariants,
  ISOLATION_LINE,
  junitUrl,
  requestNames,
} from "./commands";
import { useCheck, useCheckCommands } from "./useChecks";
import { VerdictBadge } from "./VerdictBadge";
import "./checks.css";

const BACK = { to: "/checks", label: "Back to the checks" };

/** `/checks/:id`: a check's verdict line by line, its JUnit XML, and how to run it from CI. */
export function CheckPage() {
  const { id = "" } = useParams();
  const check = useCheck(id);
  const experiment = useExperiment(check.data?.experiment_id ?? "", check.data != null);
  useDocumentTitle(`Check ${id.slice(0, 8)}`);
  return (
    <DetailGate query={check} what="the check" heading={`Check ${id.slice(0, 8)}`} back={BACK}>
      {(data) => <Check data={data} experiment={experiment.data} />}
    </DetailGate>
  );
}

/** A stored variant as people name it: its shipped pipeline, or its file, and its settings. */
function VariantText({ variant, name }: { variant: VariantSpec; name: string | null }) {
  const settings = Object.entries(variant.settings ?? {});
  return (
    <>
      {variant.config_file ? (
        <>
          <code>{name ?? "config file"}</code> (config file <code>{variant.config_file}</code>)
        </>
      ) : (
        <code>{variant.pipeline ?? name ?? MISSING}</code>
      )}
      {settings.length > 0 && (
        <span className="muted small">
          {" "}
          with {settings.map(([key, value]) => `${key}=${value}`).join(", ")}
        </span>
      )}
    </>
  );
}

/** What a pipeline check compares: the two variants, at which span rate. */
function PipelineFacts({ experiment }: { experiment: ExperimentDetail }) {
  const spec = experiment.spec as unknown as PipelineSpec;
  const { baseline, candidate } = checkVariants(spec);
  const names = requestNames(spec.name);
  return (
    <>
      <Fact term="Compares">
        <span className="subject-pipeline">Collector pipeline</span>{" "}
        {experiment.name?.replace(/^check: /, "") ?? "candidate vs baseline"}
      </Fact>
      <Fact term="Candidate variant">
        <VariantText variant={candidate} name={names.candidate} />
      </Fact>
      <Fact term="Baseline variant">
        <VariantText variant={baseline} name={names.baseline} />
      </Fact>
      <Fact term="Load">
        {formatSpanRate(spec.load?.spans_per_s)}, {formatNumber(spec.load?.duration_s, 1)} s
        measured, {spec.rounds} round{spec.rounds === 1 ? "" : "s"}
      </Fact>
    </>
  );
}

/** The service a check's history is kept under (db/repository.py `history_service`): a
 * pipeline's is "collector", a command service's its service_name, a demo's its language. */
function historyService(experiment: ExperimentDetail, pipeline: boolean): string {
  if (pipeline) return "collector";
  const service = (experiment.spec as { service?: { kind?: string; service_name?: string } })
    .service;
  return service?.kind === "command" && service.service_name
    ? service.service_name
    : experiment.service;
}

function Check({ data, experiment }: { data: CheckStatus; experiment?: ExperimentDetail }) {
  const verdict = data.verdict ?? null;
  const pipeline = experiment != null && isPipelineExperiment(experiment);
  return (
    <>
      <DetailHead
        title={
          <>
            Check {data.id.slice(0, 8)} <CheckVerdict check={data} />
          </>
        }
        id={data.id}
        back={BACK}
        error={data.error}
      />
      <dl className="spec-summary">
        {experiment && pipeline ? (
          <PipelineFacts experiment={experiment} />
        ) : (
          <Fact term="Compares">
            {experiment
              ? `${experiment.name?.replace(/^check: /, "") ?? "candidate vs baseline"} on ${experiment.service}`
              : MISSING}
          </Fact>
        )}
        <Fact term="Experiment">
          <Link to={`/experiments/${data.experiment_id}`}>{data.experiment_id.slice(0, 8)}</Link> (
          {data.status})
        </Fact>
        <Fact term="Judged on">
          {data.strict
            ? "the point estimate (strict)"
            : "the paired 95% interval (one-sided test after Holm)"}
        </Fact>
        <Fact term="Created">{formatDateTime(data.created_at)}</Fact>
        <ProvenanceFacts check={data} />
      </dl>
      <CheckLinks
        check={data}
        service={experiment ? historyService(experiment, pipeline) : null}
        stacks={
          !pipeline &&
          (experiment?.spec as { sample_stacks?: boolean } | undefined)?.sample_stacks === true
        }
      />

      <section className="panel" aria-labelledby="lines-title">
        <div className="section-head">
          <h2 id="lines-title">Budget lines</h2>
          {verdict && (
            <DownloadLink
              className="button button-small"
              href={junitUrl(data.id)}
              filename={`tracetax-check-${data.id.slice(0, 8)}-junit.xml`}
            >
              Download JUnit XML
            </DownloadLink>
          )}
        </div>
        <OnceFinal
          status={data.status}
          experimentId={data.experiment_id}
          subject="The check's experiment"
          outcome="the verdict"
        >
          <BudgetLines check={data} pipeline={pipeline} />
        </OnceFinal>
      </section>

      <HistoryJudgements check={data} />

      <CiCommands check={data} />
    </>
  );
}

function measuredText(line: BudgetLine): { estimate: string; interval: string } {
  const measured = line.measured;
  if (!measured || measured.estimate == null) return { estimate: MISSING, interval: MISSING };
  if (COUNT_LINES.includes(line.name)) {
    return { estimate: `${formatNumber(measured.estimate, 0)} spans`, interval: "counted" };
  }
  if (line.name === ISOLATION_LINE) {
    const n = measured.estimate;
    return { estimate: `${formatNumber(n, 0)} flagged round${n === 1 ? "" : "s"}`, interval: "—" };
  }
  // Oriented so that positive is worse, in the budget's unit (%, ms, µs, cores or MiB); the
  // cost lines are the candidate's own bytes per request and $/month.
  const format = (value: number) => budgetMeasure(line.name, value);
  return {
    estimate: format(measured.estimate),
    interval:
      measured.low != null && measured.high != null
        ? formatInterval([measured.low, measured.high], format)
        : "no interval",
  };
}

const HINT =
  /(about \d+ rounds would resolve it|more than \d+ rounds would be needed|more rounds would narrow it)/;

/** A line's reason, with how many rounds would resolve an inconclusive line picked out. */
function Reason({ line }: { line: BudgetLine }) {
  const match = line.verdict === "inconclusive" ? HINT.exec(line.reason) : null;
  if (!match) return <>{line.reason}</>;
  const at = match.index;
  return (
    <>
      {line.reason.slice(0, at)}
      <span className="line-hint">{match[0]}</span>
      {line.reason.slice(at + match[0].length)}
    </>
  );
}

function BudgetLines({ check, pipeline }: { check: CheckStatus; pipeline: boolean }) {
  const lines = check.verdict?.lines ?? [];
  if (lines.length === 0) {
    return (
      <p className="muted">
        No budget line was judged{budgetSetsNone(check.budget) ? ": the budget sets none." : "."}
      </p>
    );
  }
  const inconclusive = lines.filter((line) => line.verdict === "inconclusive").length;
  return (
    <>
      {inconclusive > 0 && (
        <p className="banner banner-warning" data-testid="inconclusive">
          <strong>
            {inconclusive === 1 ? "One line is" : `${inconclusive} lines are`} inconclusive:
          </strong>{" "}
          the 95% interval straddles the budget, so these rounds cannot tell whether the candidate
          is within it. The check is an error, not a pass; its reason says how many rounds would
          resolve it.
        </p>
      )}
      <div className="table-scroll">
        <table className="budget-lines">
          <caption>
            {check.strict
              ? "Strict: a line fails when its estimate is over budget."
              : "A line fails when the change is over budget beyond noise (one-sided paired t-test after Holm over the lines), passes when its whole 95% interval is within budget, and is inconclusive otherwise."}{" "}
            Measured values are oriented so that positive is worse (a drop in throughput is
            positive); an inconclusive or unknown line, or a flagged round, makes the check an
            error.
          </caption>
          <thead>
            <tr>
              <th scope="col">Line</th>
              <th scope="col">Budget</th>
              <th scope="col">Measured</th>
              <th scope="col">95% interval</th>
              <th scope="col">Verdict</th>
              <th scope="col">Change</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {lines.map((line) => {
              const measured = measuredText(line);
              return (
                <tr key={line.name} data-line={line.name} className={`line-${line.verdict}`}>
                  <th scope="row">
                    {budgetLabel(line.name, pipeline)}
                    <div className="muted small mono">{line.name}</div>
                  </th>
                  <td>{budgetLimit(line.name, line.budget)}</td>
                  <td className="number">{measured.estimate}</td>
                  <td className="number">{measured.interval}</td>
                  <td>
                    <VerdictBadge verdict={line.verdict} />
                  </td>
                  <td className="small">
                    {line.summary ?? <span className="muted">{MISSING}</span>}
                  </td>
                  <td className="small">
                    <Reason line={line} />
                    {line.p_adjusted != null && (
                      <div className="muted">
                        one-sided p = {formatP(line.p_adjusted)} after Holm over the lines
                      </div>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}

function CopyButton({ text, what }: { text: string; what: string }) {
  const [copied, setCopied] = useState<"yes" | "no" | null>(null);
  return (
    <>
      <button
        type="button"
        className="button-small"
        onClick={() =>
          navigator.clipboard?.writeText(text).then(
            () => setCopied("yes"),
            () => setCopied("no"),
          ) ?? setCopied("no")
        }
      >
        Copy {what}
      </button>
      <span className="small muted" aria-live="polite">
        {copied === "yes" ? "Copied." : copied === "no" ? "Copying is not allowed here." : ""}
      </span>
    </>
  );
}

/** The same check from a pipeline: curl against the API, and the `tracetax check` CLI, as the
 * backend builds them from the check's stored request (app/check_commands.py). */
function CiCommands({ check }: { check: CheckStatus }) {
  const base = globalThis.location?.origin ?? "http://127.0.0.1:8000";
  const commands = useCheckCommands(check.id, base);
  return (
    <section className="panel" aria-labelledby="commands-title">
      <h2 id="commands-title">Run it from CI</h2>
      {commands.isPending && <Loading>Loading the check's request…</Loading>}
      {commands.isError && (
        <ErrorState
          title="Could not load the check's commands"
          error={commands.error}
          onRetry={() => commands.refetch()}
        />
      )}
      {commands.data && (
        <CommandBlocks
          cli={commands.data.cli}
          curl={commands.data.curl}
          flag={commands.data.request.subject === COLLECTOR_SUBJECT ? "--collector" : undefined}
        />
      )}
    </section>
  );
}

function CommandBlocks({ cli, curl, flag }: { cli: CliCommand; curl: string; flag?: string }) {
  return (
    <>
      <h3>
        <code>tracetax check{flag ? ` ${flag}` : ""}</code>
      </h3>
      <p className="muted small">
        Exits 0 on pass, 1 on fail, 2 on error, and writes the JUnit XML for the CI's test report.
        {!cli.flags &&
          ` Its flags cannot say ${cli.reasons.join(", ")}, so it reads the request from a file.`}
      </p>
      <div className="command">
        <pre className="code-block" data-testid="cli-command">
          {cli.command}
        </pre>
        <CopyButton text={cli.command} what="the CLI command" />
      </div>
      <h3>curl</h3>
      <p className="muted small">
        The same request against the API: queue it, then read the verdict and the JUnit XML once its
        experiment has finished.
      </p>
      <div className="command">
        <pre className="code-block" data-testid="curl-command">
          {curl}
        </pre>
        <CopyButton text={curl} what="the curl commands" />
      </div>
    </>
  );
}
