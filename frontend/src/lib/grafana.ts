// Links into Grafana's Explore: a pane with one data source, its queries and a time range,
// as Grafana's `/explore?schemaVersion=1&panes=…` URL. Built only when the backend names a
// Grafana (GET /api/v1/meta); without one the UI shows no links.

import type { GrafanaLinks } from "../api/types";

export interface ExploreQuery {
  /** The query text: TraceQL (a trace id) for Tempo, LogQL for Loki, PromQL for metrics. */
  query: string;
  /** Extra fields of the data source's query model, e.g. `{queryType: "traceql"}`. */
  extra?: Record<string, unknown>;
}

export interface TimeRange {
  /** Epoch milliseconds, or Grafana's relative times ("now-1h"). */
  from: number | string;
  to: number | string;
}

/** refIds A, B, … Z, AA, AB … as Grafana names queries. */
export function refId(index: number): string {
  let name = "";
  let n = index;
  do {
    name = String.fromCharCode(65 + (n % 26)) + name;
    n = Math.floor(n / 26) - 1;
  } while (n >= 0);
  return name;
}

/** The Explore URL of one pane: `datasource` (name or uid), the queries, the range. */
export function exploreUrl(
  grafanaUrl: string,
  datasource: string,
  queries: readonly ExploreQuery[],
  range: TimeRange,
): string {
  const pane = {
    a: {
      datasource,
      queries: queries.map((q, index) => ({
        refId: refId(index),
        ...q.extra,
        query: q.query,
      })),
      range: { from: String(range.from), to: String(range.to) },
    },
  };
  const base = grafanaUrl.replace(/\/+$/, "");
  return `${base}/explore?schemaVersion=1&panes=${encodeURIComponent(JSON.stringify(pane))}&orgId=1`;
}

/** A trace in Tempo, looked up by its id with TraceQL. */
export function traceExploreUrl(grafana: GrafanaLinks, traceId: string, range: TimeRange): string {
  return exploreUrl(
    grafana.url,
    grafana.tempo_datasource,
    [{ query: traceId, extra: { queryType: "traceql" } }],
    range,
  );
}

/** Log queries in Loki (LogQL); Loki's query model calls the text `expr`. */
export function logsExploreUrl(
  grafana: GrafanaLinks,
  logQueries: readonly string[],
  range: TimeRange,
): string {
  return exploreUrl(
    grafana.url,
    grafana.loki_datasource,
    logQueries.map((query) => ({ query, extra: { expr: query, queryType: "range" } })),
    range,
  );
}

/** The range of an experiment's run: a minute either side of its start and end. */
export function runRange(
  startedAt: Date | null,
  finishedAt: Date | null,
  now: Date = new Date(),
): TimeRange {
  if (!startedAt) return { from: "now-6h", to: "now" };
  const minute = 60_000;
  return {
    from: startedAt.getTime() - minute,
    to: (finishedAt ?? now).getTime() + minute,
  };
}
