import { type ReactNode, useRef, useState } from "react";
import { useMeta } from "../../api/queries";
import type { GrafanaLinks } from "../../api/types";
import { logsExploreUrl, type TimeRange, traceExploreUrl } from "../../lib/grafana";
import { Empty, ErrorState, Loading } from "../States";
import { TraceWaterfall } from "./TraceWaterfall";
import { LOG_LIMIT, useLogs, useTrace } from "./useDiagnostics";
import "./results.css";

interface Props {
  experimentId: string;
  /** From the diagnostics; null while they load or when they failed. */
  sampleTraces: Record<string, string[]> | null;
  tracesPending: boolean;
  /** Configurations in spec order. */
  order: string[];
  /** The run's time range, for the Grafana links. */
  range: TimeRange;
  /** Whether to show the run's logs (a Collector pipeline's run has none). */
  logs?: boolean;
  /** What to say when no configuration has a sample trace. */
  noTraces?: ReactNode;
}

interface Selection {
  configuration: string;
  traceId: string;
}

/** A sample trace as a waterfall (from Tempo) and the run's recent logs (from Loki). */
export function Telemetry({
  experimentId,
  sampleTraces: traces,
  tracesPending,
  order,
  range,
  logs = true,
  noTraces = "No sample traces: the baseline sends none, and Tempo had none of this run for the other configurations.",
}: Props) {
  const meta = useMeta();
  const grafana = meta.data?.grafana ?? null;
  const sampleTraces = traces ?? {};
  const withTraces = order.filter((name) => (sampleTraces[name] ?? []).length > 0);
  const [selection, setSelection] = useState<Selection | null>(null);
  const waterfall = useRef<HTMLElement>(null);
  const current: Selection | null =
    selection ??
    (withTraces.length > 0
      ? {
          configuration: withTraces[withTraces.length - 1],
          traceId: sampleTraces[withTraces[withTraces.length - 1]][0],
        }
      : null);

  const showTrace = (configuration: string, traceId: string) => {
    setSelection({ configuration, traceId });
    waterfall.current?.scrollIntoView({ block: "start" });
    waterfall.current?.focus({ preventScroll: true });
  };

  return (
    <>
      <section
        className="panel"
        aria-labelledby="trace-title"
        id="sample-trace"
        ref={waterfall}
        tabIndex={-1}
      >
        <h2 id="trace-title">Sample trace</h2>
        {!traces && tracesPending ? (
          <Loading>Finding sample traces…</Loading>
        ) : !traces ? (
          <p className="muted">Not available: the diagnostics could not be computed (see above).</p>
        ) : current ? (
          <SampleTrace
            current={current}
            sampleTraces={sampleTraces}
            configurations={withTraces}
            grafana={grafana}
            range={range}
            onSelect={setSelection}
          />
        ) : (
          <Empty>
            <p>{noTraces}</p>
          </Empty>
        )}
      </section>
      {logs && (
        <section className="panel" aria-labelledby="logs-title" id="logs">
          <h2 id="logs-title">Recent logs</h2>
          <RecentLogs
            experimentId={experimentId}
            configurations={order}
            grafana={grafana}
            range={range}
            onShowTrace={showTrace}
          />
        </section>
      )}
    </>
  );
}

function SampleTrace({
  current,
  sampleTraces,
  configurations,
  grafana,
  range,
  onSelect,
}: {
  current: Selection;
  sampleTraces: Record<string, string[]>;
  configurations: string[];
  grafana: GrafanaLinks | null;
  range: TimeRange;
  onSelect: (selection: Selection) => void;
}) {
  const trace = useTrace(current.traceId);
  const ids = sampleTraces[current.configuration] ?? [];
  const traceIds = ids.includes(current.traceId) ? ids : [current.traceId, ...ids];
  return (
    <>
      <div className="toolbar">
        <label>
          Configuration{" "}
          <select
            value={current.configuration}
            onChange={(event) =>
              onSelect({
                configuration: event.target.value,
                traceId: sampleTraces[event.target.value]?.[0] ?? current.traceId,
              })
            }
          >
            {!configurations.includes(current.configuration) && (
              <option value={current.configuration}>{current.configuration}</option>
            )}
            {configurations.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Trace{" "}
          <select
            className="mono"
            value={current.traceId}
            onChange={(event) => onSelect({ ...current, traceId: event.target.value })}
          >
            {traceIds.map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
          </select>
        </label>
        {grafana && (
          <a
            href={traceExploreUrl(grafana, current.traceId, range)}
            target="_blank"
            rel="noreferrer"
          >
            Open in Grafana Explore
          </a>
        )}
      </div>
      {trace.isPending && <Loading>Loading trace {current.traceId} from Tempo…</Loading>}
      {trace.isError && (
        <ErrorState
          title="Could not load the trace"
          error={trace.error}
          onRetry={() => trace.refetch()}
        />
      )}
      {trace.data && <TraceWaterfall trace={trace.data} traceId={current.traceId} />}
    </>
  );
}

function formatTimestamp(ns: number): string {
  const date = new Date(ns / 1e6);
  if (Number.isNaN(date.getTime())) return String(ns);
  const time = date.toLocaleTimeString("en-GB", { hour12: false });
  return `${time}.${String(date.getMilliseconds()).padStart(3, "0")}`;
}

function RecentLogs({
  experimentId,
  configurations,
  grafana,
  range,
  onShowTrace,
}: {
  experimentId: string;
  configurations: string[];
  grafana: GrafanaLinks | null;
  range: TimeRange;
  onShowTrace: (configuration: string, traceId: string) => void;
}) {
  const [configuration, setConfiguration] = useState<string | null>(null);
  const logs = useLogs(experimentId, configuration);
  return (
    <>
      <div className="toolbar">
        <label>
          Configuration{" "}
          <select
            value={configuration ?? ""}
            onChange={(event) => setConfiguration(event.target.value || null)}
          >
            <option value="">all</option>
            {configurations.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <span className="muted small">the {LOG_LIMIT} most recent records of each round</span>
        {grafana && logs.data && logs.data.queries.length > 0 && (
          <a
            href={logsExploreUrl(grafana, logs.data.queries, range)}
            target="_blank"
            rel="noreferrer"
          >
            Open in Grafana Explore
          </a>
        )}
      </div>
      {logs.isPending && <Loading>Loading logs from Loki…</Loading>}
      {logs.isError && (
        <ErrorState
          title="Could not load the logs"
          error={logs.error}
          onRetry={() => logs.refetch()}
        />
      )}
      {logs.data && logs.data.records.length === 0 && (
        <Empty>
          <p>
            Loki has no log records of this run
            {configuration ? ` for ${configuration}` : ""}: the baseline sends none.
          </p>
        </Empty>
      )}
      {logs.data && logs.data.records.length > 0 && (
        <div className="table-scroll logs-scroll">
          <table className="logs" data-testid="logs" data-records={logs.data.records.length}>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Configuration</th>
                <th scope="col">Round</th>
                <th scope="col">Level</th>
                <th scope="col">Message</th>
                <th scope="col">Trace</th>
              </tr>
            </thead>
            <tbody>
              {logs.data.records.map((record) => {
                const traceId = record.metadata.trace_id;
                return (
                  <tr
                    key={`${record.timestamp_ns}-${record.configuration}-${record.round}-${record.metadata.span_id ?? record.line}`}
                  >
                    <td className="mono small">{formatTimestamp(record.timestamp_ns)}</td>
                    <td>{record.configuration}</td>
                    <td>{record.round + 1}</td>
                    <td>{record.metadata.severity_text ?? record.metadata.detected_level ?? ""}</td>
                    <td className="mono small log-line">{record.line}</td>
                    <td>
                      {traceId ? (
                        <button
                          type="button"
                          className="button-small"
                          onClick={() => onShowTrace(record.configuration, traceId)}
                          aria-label={`Show trace ${traceId}`}
                        >
                          Show
                        </button>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {logs.data && logs.data.queries.length > 0 && (
        <details className="queries">
          <summary>
            LogQL ({logs.data.queries.length} quer{logs.data.queries.length === 1 ? "y" : "ies"},
            one per round)
          </summary>
          <ul>
            {logs.data.queries.map((query) => (
              <li key={query}>
                <code>{query}</code>
              </li>
            ))}
          </ul>
        </details>
      )}
    </>
  );
}
