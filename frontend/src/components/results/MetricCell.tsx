import type { CellData } from "./comparison";
import { describeChange } from "./overhead";
import { limiterText } from "./rounds";
import "./results.css";

/**
 * A value with its change against the baseline as the diagnostics computed it: the absolute
 * change with its 95% interval, the relative change and the direction in the API's words,
 * coloured by direction (a throughput drop is worse), with the test after Holm in small text.
 * With `wording="summary"` the change is the API's own sentence (`Change.summary`) instead.
 */
export function MetricCell({
  cell,
  wording = "parts",
}: {
  cell: CellData;
  wording?: "parts" | "summary";
}) {
  const change = cell.isBaseline ? null : describeChange(cell.overhead);
  const direction = change?.direction ?? undefined;
  const tooltip = change
    ? [
        change.summary,
        change.relativeRange ? `relative 95% interval ${change.relativeRange}` : null,
        change.significance,
        change.note,
      ]
        .filter(Boolean)
        .join("\n")
    : undefined;
  return (
    <td
      className={`metric-cell${cell.significant ? " is-significant" : ""}${cell.isBaseline ? " is-baseline" : ""}`}
      data-direction={direction}
      data-significant={cell.significant || undefined}
    >
      <span className="metric-value">{cell.text}</span>
      {change && (
        <span className="metric-change" title={tooltip}>
          {wording === "summary" ? (
            <span className="metric-diff metric-summary">{change.summary}</span>
          ) : change.absolute !== "—" ? (
            <>
              <span className="metric-diff">
                {change.absolute}
                {change.absoluteRange && (
                  <span className="metric-range" title="95% interval of the absolute change">
                    {" "}
                    ({change.absoluteRange})
                  </span>
                )}
              </span>
              <span className="metric-relative">
                {change.relative && <>{change.relative} · </>}
                <span className="metric-direction">{change.words}</span>
              </span>
            </>
          ) : (
            <span className="metric-direction">unknown</span>
          )}
          <span className="metric-stats">{change.significanceShort}</span>
          {change.note && (wording === "parts" || change.absolute !== "—") && (
            <span className="metric-interval metric-note">{change.note}</span>
          )}
        </span>
      )}
      {cell.limitedBy && (
        <span className="metric-limit" data-testid="limited-by">
          {limiterText(cell.limitedBy)}
        </span>
      )}
    </td>
  );
}
