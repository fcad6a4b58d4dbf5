// What a check adds for its history (issue 24): where it came from and what it ran on, its
// judgements against the history of a branch (`--against-history`), and where to read on: the
// configuration's History page, the differential flame graph, the Markdown summary.

import { Link } from "react-router";
import type { CheckStatus, HistoryJudgement } from "../../api/types";
import { Fact } from "../../components/DetailPage";
import { DownloadLink } from "../../components/DownloadLink";
import { historyPath, metricLabel, shortSha } from "../../components/history/historyMetrics";
import { VerdictTag } from "../../components/history/VerdictTag";
import { formatBytes, MISSING } from "../../lib/format";
import { markdownUrl } from "./commands";
import { VerdictBadge } from "./VerdictBadge";
import "./checks.css";

const MINUS = "\u2212";

/** A growth in percentage points of overhead: "+3.1 pp", "−0.4 pp"; "unknown". */
export function formatGrowth(value: number | null | undefined): string {
  if (typeof value !== "number" || !Number.isFinite(value)) return "unknown";
  const body = Math.abs(value).toFixed(1);
  const sign = Number(body) === 0 ? "" : value > 0 ? "+" : MINUS;
  return `${sign}${body} pp`;
}

/** The facts of a check's provenance and machine, for its summary (`<dl>`). */
export function ProvenanceFacts({ check }: { check: CheckStatus }) {
  const provenance = check.provenance;
  const machine = check.machine;
  return (
    <>
      {provenance ? (
        <>
          <Fact term="Repository">{provenance.repository ?? MISSING}</Fact>
          <Fact term="Branch">{provenance.branch ?? MISSING}</Fact>
          <Fact term="Commit">
            {provenance.commit ? (
              <code title={provenance.commit}>{shortSha(provenance.commit)}</code>
            ) : (
              MISSING
            )}
          </Fact>
          {provenance.pull_request && <Fact term="Pull request">{provenance.pull_request}</Fact>}
          <Fact term="CI run">
            {provenance.ci_run_url ? (
              <a href={provenance.ci_run_url} target="_blank" rel="noreferrer noopener">
                {provenance.ci_system ?? "CI run"}
              </a>
            ) : (
              (provenance.ci_system ?? MISSING)
            )}
          </Fact>
        </>
      ) : (
        <Fact term="Provenance">
          none recorded: <code>tracetax check</code> takes <code>--branch</code> and{" "}
          <code>--commit</code>, and reads them from the CI's environment
        </Fact>
      )}
      <Fact term="Machine">
        {machine ? (
          <>
            <code>{machine.fingerprint}</code>{" "}
            <span className="muted small">
              {[
                machine.cpu_model,
                machine.cores != null && `${machine.cores} cores`,
                machine.memory_bytes != null && formatBytes(machine.memory_bytes),
                machine.kernel,
                machine.virtualization &&
                  (machine.virtualization === "none"
                    ? "not virtualised"
                    : `virtualised (${machine.virtualization})`),
              ]
                .filter(Boolean)
                .join(", ")}
            </span>
          </>
        ) : (
          "not recorded yet"
        )}
      </Fact>
    </>
  );
}

/** The check's verdict as its title shows it: the overall verdict the API answers (the same
 * run's with the judgements against history, backend history/gate.py: what `tracetax check`
 * exits with), or the check's status before it has one; with judgements against history, the
 * same run's beside it. */
export function CheckVerdict({ check }: { check: CheckStatus }) {
  const sameRun = check.verdict?.verdict;
  if (!check.history?.length) return <VerdictBadge verdict={check.overall} status={check.status} />;
  return (
    <>
      <VerdictBadge verdict={check.overall} status={check.status} />{" "}
      <span className="muted small" data-testid="same-run-verdict">
        same run <VerdictBadge verdict={sameRun} />
      </span>
    </>
  );
}

/** The check's verdict against its branch's history, a row per metric. */
export function HistoryJudgements({ check }: { check: CheckStatus }) {
  const gate = check.against_history;
  if (!gate) return null;
  const judgements: HistoryJudgement[] = check.history ?? [];
  const limit = `≤ ${formatGrowth(gate.max_growth_pct)}`;
  return (
    <section className="panel" aria-labelledby="against-history-title">
      <h2 id="against-history-title">Against the history of {gate.branch}</h2>
      <p className="muted small">
        Each overhead against the last {gate.points} checks of {gate.branch} (same service,
        configuration and machine), judged on their stored 95% intervals: a metric fails when it
        grew by more than {formatGrowth(gate.max_growth_pct)} beyond noise.
      </p>
      {judgements.length === 0 ? (
        <p className="muted">No judgement yet: it comes with the verdict.</p>
      ) : (
        <div className="table-scroll">
          <table className="history-judgements">
            <caption className="visually-hidden">
              Judgements against the history of {gate.branch}
            </caption>
            <thead>
              <tr>
                <th scope="col">Metric</th>
                <th scope="col">Growth</th>
                <th scope="col">95% interval</th>
                <th scope="col">Limit</th>
                <th scope="col">Points</th>
                <th scope="col">Verdict</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {judgements.map((judgement) => (
                <tr key={judgement.metric} data-metric={judgement.metric}>
                  <th scope="row">{metricLabel(judgement.metric)}</th>
                  <td className="number">{formatGrowth(judgement.growth)}</td>
                  <td className="number">
                    {judgement.low != null && judgement.high != null
                      ? `[${formatGrowth(judgement.low)}, ${formatGrowth(judgement.high)}]`
                      : "no interval"}
                  </td>
                  <td>{limit}</td>
                  <td className="number">{judgement.points}</td>
                  <td>
                    <VerdictTag verdict={judgement.verdict} />
                  </td>
                  <td className="small">{judgement.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The History page of the check's configuration, on the branch it was judged against or ran on. */
export function checkHistoryPath(check: CheckStatus, service: string | null): string | null {
  if (!service || !check.configuration) return null;
  return historyPath({
    service,
    configuration: check.configuration,
    branch: check.against_history?.branch ?? check.provenance?.branch ?? null,
  });
}

/** The experiment page's differential flame graph: the candidate against the baseline (a check's
 * experiment names them so). A check samples no stacks unless asked, and the page then says so. */
export function flameDiffPath(experimentId: string): string {
  return `/experiments/${encodeURIComponent(experimentId)}?flame=candidate&against=baseline`;
}

/** Where to read on: the configuration's history, the added cost's flame graph (when the check
 * sampled stacks), the summary. `service`: the service its history is kept under. */
export function CheckLinks({
  check,
  service,
  stacks,
}: {
  check: CheckStatus;
  service: string | null;
  stacks: boolean;
}) {
  const history = checkHistoryPath(check, service);
  return (
    <nav className="check-links" aria-label="More about this check">
      {history && <Link to={history}>History of this configuration</Link>}
      {stacks && <Link to={flameDiffPath(check.experiment_id)}>Where the added cost went</Link>}
      {check.verdict && (
        <DownloadLink
          href={markdownUrl(check.id)}
          filename={`tracetax-check-${check.id.slice(0, 8)}.md`}
        >
          Markdown summary
        </DownloadLink>
      )}
    </nav>
  );
}
