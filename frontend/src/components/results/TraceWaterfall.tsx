import { useMemo } from "react";
import type { OtlpTrace } from "../../api/types";
import { formatMicros } from "../../lib/format";
import { Empty } from "../States";
import { waterfallLayout } from "./waterfall";
import "./results.css";

const nanos = (ns: number) => formatMicros(ns / 1000);

/** One trace's spans as rows, indented by depth, each with a bar placed by its time. */
export function TraceWaterfall({ trace, traceId }: { trace: OtlpTrace; traceId: string }) {
  const layout = useMemo(() => waterfallLayout(trace), [trace]);
  if (layout.rows.length === 0) {
    return (
      <Empty>
        <p>Tempo returned trace {traceId} without spans.</p>
      </Empty>
    );
  }
  return (
    <div className="table-scroll">
      <table className="waterfall" data-testid="waterfall" data-spans={layout.rows.length}>
        <caption>
          Trace <span className="mono">{traceId}</span>: {layout.rows.length} span
          {layout.rows.length === 1 ? "" : "s"} over {nanos(layout.durationNs)}, from{" "}
          {layout.services.join(", ")}.
        </caption>
        <thead>
          <tr>
            <th scope="col">Span</th>
            <th scope="col" className="number">
              Duration
            </th>
            <th scope="col" className="waterfall-timeline-head">
              <span>0</span>
              <span>{nanos(layout.durationNs / 2)}</span>
              <span>{nanos(layout.durationNs)}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {layout.rows.map((row) => (
            <tr key={row.spanId} className={row.error ? "row-failed" : undefined}>
              <th scope="row" style={{ paddingLeft: `${0.6 + row.depth * 1.1}rem` }}>
                <span className="span-name">{row.name}</span>
                <span className="muted small">
                  {" "}
                  {[row.kind.toLowerCase(), row.orphan ? "parent not in trace" : null]
                    .filter(Boolean)
                    .join(" · ")}
                </span>
                {row.error && <span className="error small"> error</span>}
              </th>
              <td className="number">{nanos(row.durationNs)}</td>
              <td className="waterfall-cell">
                <span
                  className={`waterfall-bar waterfall-depth-${Math.min(row.depth, 4)}`}
                  style={{
                    left: `${row.leftPercent}%`,
                    width: `max(2px, ${row.widthPercent}%)`,
                  }}
                  title={`starts at ${nanos(row.startNs)}, lasts ${nanos(row.durationNs)}`}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
