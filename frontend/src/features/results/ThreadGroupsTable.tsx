import { colorFor } from "../../lib/charts/palette";
import type { ThreadTable } from "./threadGroups";

interface Props {
  table: ThreadTable;
  /** Its place in the spec, for its colour. */
  index: number;
  /** Whether to show the per-span columns (some configuration has per-span figures). */
  perSpan: boolean;
}

/** One configuration's thread groups: threads, CPU and context switches per request (and span). */
export function ThreadGroupsTable({ table, index, perSpan }: Props) {
  const { configuration, concurrency, rows } = table;
  return (
    <div className="table-scroll thread-table" data-configuration={configuration}>
      <table>
        <caption>
          <span className="swatch" style={{ background: colorFor(index) }} aria-hidden="true" />
          <strong>{configuration}</strong>{" "}
          <span className="muted small">{concurrency || "the service's default concurrency"}</span>
        </caption>
        {rows.length === 0 ? (
          <tbody>
            <tr>
              <td className="muted">
                No thread figures: results from before threads were measured, or no round completed.
              </td>
            </tr>
          </tbody>
        ) : (
          <>
            <thead>
              <tr>
                <th scope="col">Thread group</th>
                <th scope="col" className="number">
                  Threads
                </th>
                <th scope="col" className="number">
                  CPU µs / request
                </th>
                <th scope="col" className="number">
                  Context switches / request
                </th>
                {perSpan && (
                  <>
                    <th scope="col" className="number">
                      CPU µs / span
                    </th>
                    <th scope="col" className="number">
                      Context switches / span
                    </th>
                  </>
                )}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr
                  key={row.group}
                  data-group={row.group}
                  className={row.batchWorker ? "is-batch-worker" : undefined}
                >
                  <th scope="row" className="mono">
                    {row.group}
                    {row.batchWorker && <span className="tag">batch processor worker</span>}
                  </th>
                  <td className="number">{row.threads}</td>
                  <td className="number">{row.cpuPerRequest}</td>
                  <td className="number">{row.ctxPerRequest}</td>
                  {perSpan && (
                    <>
                      <td className="number">{row.cpuPerSpan}</td>
                      <td className="number">{row.ctxPerSpan}</td>
                    </>
                  )}
                </tr>
              ))}
            </tbody>
          </>
        )}
      </table>
    </div>
  );
}
