import type { ConfigurationCost, Figure } from "../../api/types";
import {
  COST_ROW_GROUPS,
  describeFigure,
  type FigureFormat,
} from "../../components/results/costFigures";
import { colorFor } from "../../lib/charts/palette";
import "../../components/results/results.css";
import "./serviceResults.css";

/**
 * A column per configuration, a row per figure: cores, GB/day per signal (sent to the Collector,
 * and into each store), $/month per component, the total and the difference from the baseline,
 * each the mean over rounds with its 95% interval, or "unknown".
 */
export function CostTable({
  configurations,
  order,
}: {
  /** In spec order. */
  configurations: ConfigurationCost[];
  /** Every configuration of the spec, for stable colours. */
  order: string[];
}) {
  const columns = configurations.length + 1;
  return (
    <div className="table-scroll">
      <table className="comparison cost-table">
        <caption>
          Means over the rounds at the inputs above, each with its 95% interval over the rounds
          (none from a single round). Service cores are those beyond the baseline's; every other
          figure is the configuration's own. A figure no round measured is unknown, not zero.
        </caption>
        <thead>
          <tr>
            <th scope="col">Figure</th>
            {configurations.map((c) => (
              <th
                scope="col"
                key={c.configuration}
                className={c.baseline ? "is-baseline" : undefined}
              >
                <span
                  className="swatch"
                  style={{ background: colorFor(order.indexOf(c.configuration)) }}
                  aria-hidden="true"
                />
                {c.configuration}
                {c.baseline && <span className="tag">baseline</span>}
              </th>
            ))}
          </tr>
        </thead>
        {COST_ROW_GROUPS.map((group) => (
          <tbody key={group.title}>
            <tr className="group-row">
              <th scope="colgroup" colSpan={columns}>
                {group.title}
              </th>
            </tr>
            {group.rows.map((row) => (
              <tr key={row.key} data-row={row.key}>
                <th scope="row" title={row.description}>
                  {row.label}
                </th>
                {configurations.map((c) =>
                  row.notForBaseline && c.baseline ? (
                    <td key={c.configuration} className="metric-cell is-baseline">
                      <span className="muted">baseline</span>
                    </td>
                  ) : (
                    <FigureCell
                      key={c.configuration}
                      figure={row.figure(c)}
                      format={row.format}
                      baseline={c.baseline}
                    />
                  ),
                )}
              </tr>
            ))}
          </tbody>
        ))}
      </table>
    </div>
  );
}

/** A figure's estimate with its 95% interval and the API's note; "unknown" where unknown. */
export function FigureCell({
  figure,
  format,
  baseline = false,
}: {
  figure: Figure;
  format: FigureFormat;
  baseline?: boolean;
}) {
  const text = describeFigure(figure, format);
  return (
    <td
      className={`metric-cell${baseline ? " is-baseline" : ""}`}
      data-unknown={text.known ? undefined : true}
    >
      <span className={`metric-value${text.known ? "" : " is-unknown"}`}>{text.value}</span>
      {text.interval && <span className="metric-interval">{text.interval}</span>}
      {text.note && <span className="metric-interval metric-note">{text.note}</span>}
    </td>
  );
}
