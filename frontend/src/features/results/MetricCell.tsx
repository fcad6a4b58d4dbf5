import { formatInterval, formatPercent } from "../../lib/format";
import type { CellData } from "./comparison";

/**
 * A value with its difference against the baseline. When the diagnostics supply an interval
 * it is shown under the difference, and a significant difference is highlighted.
 */
export function MetricCell({ cell }: { cell: CellData }) {
  const direction =
    cell.worse == null
      ? undefined
      : cell.worse
        ? "worse than the baseline"
        : "better than the baseline";
  return (
    <td
      className={`metric-cell${cell.significant ? " is-significant" : ""}${cell.isBaseline ? " is-baseline" : ""}`}
      data-worse={cell.worse == null ? undefined : String(cell.worse)}
    >
      <span className="metric-value">{cell.text}</span>
      {!cell.isBaseline && cell.diffPercent != null && (
        <span className="metric-diff" title={direction}>
          {formatPercent(cell.diffPercent)}
          {direction && <span className="visually-hidden"> ({direction})</span>}
        </span>
      )}
      {cell.interval && (
        <span className="metric-interval" title="confidence interval of the difference">
          {formatInterval(cell.interval)}
        </span>
      )}
      {cell.significant && <span className="visually-hidden"> significant</span>}
    </td>
  );
}
