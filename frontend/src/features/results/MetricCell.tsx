import type { CellData } from "./comparison";
import { describeOverhead } from "./overhead";

/**
 * A value with its overhead against the baseline as the diagnostics computed it: the
 * estimate, its 95% interval (or why there is none), highlighted when significant.
 */
export function MetricCell({ cell }: { cell: CellData }) {
  const overhead = cell.isBaseline ? null : describeOverhead(cell.overhead);
  const direction =
    overhead?.direction === "worse"
      ? "worse than the baseline"
      : overhead?.direction === "better"
        ? "better than the baseline"
        : undefined;
  return (
    <td
      className={`metric-cell${cell.significant ? " is-significant" : ""}${cell.isBaseline ? " is-baseline" : ""}`}
      data-worse={cell.worse == null ? undefined : String(cell.worse)}
      data-significant={cell.significant || undefined}
    >
      <span className="metric-value">{cell.text}</span>
      {overhead && (
        <>
          <span className="metric-diff" title={direction}>
            {overhead.estimate}
            {direction && <span className="visually-hidden"> ({direction})</span>}
          </span>
          {overhead.range ? (
            <span className="metric-interval" title="95% interval of the overhead">
              {overhead.range}
            </span>
          ) : (
            overhead.note && <span className="metric-interval metric-note">{overhead.note}</span>
          )}
          {cell.significant && <span className="metric-flag">significant</span>}
        </>
      )}
    </td>
  );
}
