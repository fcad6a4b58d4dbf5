import { Link } from "react-router";
import type { HistorySeries } from "../../api/types";
import {
  formatEstimate,
  type HistoryMetric,
  shortSha,
} from "../../components/history/historyMetrics";
import { VerdictTag } from "../../components/history/VerdictTag";
import { ChartFigure } from "../../lib/charts/ChartFigure";
import { formatDateTime, MISSING } from "../../lib/format";
import { changePointText, historyOption, pointLabel } from "./historyChart";
import "./history.css";

/** One metric's history: the chart, its change points in words, and every point in a table. */
export function HistoryChart({ series, metric }: { series: HistorySeries; metric: HistoryMetric }) {
  return (
    <>
      <ChartFigure
        data={series}
        option={historyOption}
        height={280}
        label={`${metric.label} by commit, with its 95% interval`}
        testId={`history-chart-${metric.name}`}
        rows={series.points.length}
      >
        Each point is a check: {metric.meaning}, with its paired 95% interval as the band, oldest
        commit first. A vertical line marks the first commit after a change point, labelled with the
        shift and its interval
        {series.budget != null ? "; the dashed line is the budget" : ""}. Hover a point for its
        commit, date, verdict and check.
      </ChartFigure>
      <ChangePoints series={series} metric={metric} />
      <PointsTable series={series} metric={metric} />
    </>
  );
}

function ChangePoints({ series, metric }: { series: HistorySeries; metric: HistoryMetric }) {
  const material = series.change_points.filter((change) => change.material);
  const small = series.change_points.filter((change) => !change.material);
  return (
    <>
      {material.length === 0 ? (
        <p className="muted small">
          No change point large enough to matter: no shift larger than the points' own noise and at
          least {series.material_pct}% in size.
        </p>
      ) : (
        <ChangePointList series={series} metric={metric} changes={material} />
      )}
      {small.length > 0 && (
        <div data-testid="small-change-points">
          <p className="muted small">
            Too small to matter (real, but under {series.material_pct}%; not drawn):
          </p>
          <ChangePointList series={series} metric={metric} changes={small} />
        </div>
      )}
    </>
  );
}

function ChangePointList({
  series,
  metric,
  changes,
}: {
  series: HistorySeries;
  metric: HistoryMetric;
  changes: HistorySeries["change_points"];
}) {
  return (
    <ul className="change-points" aria-label={`Change points of the ${metric.label}`}>
      {changes.map((change) => {
        const point = series.points[change.index];
        const at =
          shortSha(change.commit) ?? (point ? pointLabel(point) : `point ${change.index + 1}`);
        return (
          <li key={`${change.index}-${change.check_id}`} data-change-index={change.index}>
            Change point at <code>{at}</code>: {changePointText(change, series.unit, at)} (from{" "}
            {formatEstimate({ estimate: change.before }, series.unit)} to{" "}
            {formatEstimate({ estimate: change.after }, series.unit)}),{" "}
            <Link to={`/checks/${change.check_id}`}>its check</Link>
          </li>
        );
      })}
    </ul>
  );
}

function PointsTable({ series, metric }: { series: HistorySeries; metric: HistoryMetric }) {
  return (
    <details className="history-points">
      <summary>Every point ({series.points.length})</summary>
      <div className="table-scroll">
        <table>
          <caption className="visually-hidden">Every check of the {metric.label}</caption>
          <thead>
            <tr>
              <th scope="col">Commit</th>
              <th scope="col">Date</th>
              <th scope="col">Branch</th>
              <th scope="col">{metric.label}</th>
              <th scope="col">Verdict</th>
              <th scope="col">Check</th>
              <th scope="col">CI run</th>
            </tr>
          </thead>
          <tbody>
            {series.points.map((point) => (
              <tr key={point.check_id}>
                <th scope="row" className="mono">
                  {shortSha(point.commit) ?? MISSING}
                  {point.pull_request && <div className="muted small">PR {point.pull_request}</div>}
                </th>
                <td>{formatDateTime(point.created_at)}</td>
                <td>{point.branch ?? MISSING}</td>
                <td className="number">{formatEstimate(point, series.unit)}</td>
                <td>
                  <VerdictTag verdict={point.verdict} />
                </td>
                <td>
                  <Link to={`/checks/${point.check_id}`}>{point.check_id.slice(0, 8)}</Link>
                </td>
                <td>
                  {point.ci_run_url ? (
                    <a href={point.ci_run_url} rel="noreferrer noopener" target="_blank">
                      run
                    </a>
                  ) : (
                    MISSING
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
