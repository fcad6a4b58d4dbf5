import { lazy, Suspense, useCallback, useMemo } from "react";
import { DownloadLink } from "../../components/DownloadLink";
import { ErrorState, Loading } from "../../components/States";
import { formatMicros, formatNumber } from "../../lib/format";
import {
  DIFF_COLORS,
  type DiffDatum,
  diffColor,
  diffFrameLabel,
  formatCost,
  formatDelta,
  toDiffData,
} from "./stackDiff";
import { type DiffTarget, foldedDiffUrl, useStackDiff } from "./useStackDiff";

// d3-flame-graph is loaded with the first flame graph.
const FlameGraphChart = lazy(() =>
  import("./FlameGraphChart").then((module) => ({
    default: module.FlameGraphChart<DiffDatum>,
  })),
);

const colorOf = (datum: DiffDatum) => diffColor(datum.delta, datum.intensity);

function side(experimentId: string, configuration: string, target: DiffTarget): string {
  return experimentId === target.experimentId
    ? configuration
    : `${configuration} of experiment ${experimentId.slice(0, 8)}`;
}

/**
 * Where the added cost went: the configuration's flame graph against another side, each frame
 * as wide as its cost per request in the configuration and coloured by the change (red: more,
 * blue: less), the functions whose own cost changed most, and the folded diff to download.
 */
export function StackDiffView({ target }: { target: DiffTarget }) {
  const diff = useStackDiff(target);
  const data = useMemo(() => (diff.data ? toDiffData(diff.data.root) : null), [diff.data]);
  const unit = diff.data?.unit ?? "us_per_request";
  const labelOf = useCallback((datum: DiffDatum) => diffFrameLabel(datum, unit), [unit]);

  if (diff.isPending) return <Loading>Comparing the stacks…</Loading>;
  if (diff.isError) {
    return (
      <ErrorState
        title={`Could not compare the stacks of ${target.configuration}`}
        error={diff.error}
        onRetry={() => diff.refetch()}
      />
    );
  }
  const answer = diff.data;
  if (!answer || !data) return null;
  const baseline = side(answer.baseline.experiment_id, answer.baseline.configuration, target);
  const candidate = side(answer.candidate.experiment_id, answer.candidate.configuration, target);
  const inMicros = answer.unit === "us_per_request";

  return (
    <div data-testid="flame-diff" data-unit={answer.unit}>
      <div className="toolbar">
        <DownloadLink
          className="button button-small"
          href={foldedDiffUrl(target)}
          filename={`tracetax-${target.experimentId.slice(0, 8)}-${answer.candidate.configuration}-vs-${answer.baseline.configuration}.diff.folded`}
        >
          Download folded diff
        </DownloadLink>
        <span className="muted small">
          difffolded.pl format for flamegraph.pl; counts in{" "}
          {inMicros ? "ns of CPU per request" : "millionths of the samples"}
        </span>
      </div>
      <p className="small">
        {inMicros ? (
          <>
            {candidate} spends {formatMicros(answer.candidate.cpu_per_request_us)} of CPU per
            request against {formatMicros(answer.baseline.cpu_per_request_us)} in {baseline} (
            {formatDelta(data.delta, answer.unit)}). Each frame is as wide as its CPU per request in{" "}
            {candidate}.
          </>
        ) : (
          <>
            Shares of the samples of {candidate} against {baseline}: {answer.unit_note}.
          </>
        )}{" "}
        <span className="muted">
          {formatNumber(answer.candidate.samples, 0)} and {formatNumber(answer.baseline.samples, 0)}{" "}
          samples.
        </span>
      </p>
      <ul className="legend" aria-label="Frame colours">
        <li>
          <span className="swatch" style={{ background: DIFF_COLORS.more }} aria-hidden="true" />
          {inMicros ? "more CPU per request" : "larger share"} than in {baseline}
        </li>
        <li>
          <span className="swatch" style={{ background: DIFF_COLORS.less }} aria-hidden="true" />
          {inMicros ? "less CPU per request" : "smaller share"}
        </li>
        <li>
          <span className="swatch" style={{ background: DIFF_COLORS.same }} aria-hidden="true" />
          unchanged; the deeper the colour, the larger the change against the largest
        </li>
      </ul>
      <Suspense fallback={<Loading>Loading the flame graph…</Loading>}>
        <FlameGraphChart
          data={data}
          label={`Where the added cost went: ${candidate} against ${baseline}`}
          colorOf={colorOf}
          labelOf={labelOf}
          valueUnit={inMicros ? "µs per request" : "% of samples"}
        />
      </Suspense>
      {answer.changes.length > 0 && (
        <table className="diff-changes">
          <caption className="small">
            Functions whose own cost changed most (samples where they are the leaf frame)
          </caption>
          <thead>
            <tr>
              <th scope="col">Function</th>
              <th scope="col">{baseline}</th>
              <th scope="col">{candidate}</th>
              <th scope="col">Change</th>
            </tr>
          </thead>
          <tbody>
            {answer.changes.map((change) => (
              <tr key={change.name}>
                <th scope="row" className="mono">
                  {change.name}
                </th>
                <td className="number">{formatCost(change.baseline, answer.unit)}</td>
                <td className="number">{formatCost(change.candidate, answer.unit)}</td>
                <td className="number">
                  <span
                    className="swatch"
                    style={{ background: diffColor(change.delta, 1) }}
                    aria-hidden="true"
                  />
                  {formatDelta(change.delta, answer.unit)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
