// The "Threads" tables' rows: each configuration's thread groups (a thread name with its
// trailing digits as `*`: http-worker-*) as aggregate.py `thread_groups` gives them, medians over
// rounds, the batch span processor's worker first. A figure that was not measured (per span,
// where the spans a request makes are not known) is "unknown", never 0.

import type { ConfigurationAggregates, ThreadGroupFigures } from "../../api/types";
import { formatNumber, significant } from "../../lib/format";

const UNKNOWN = "unknown";

/**
 * Whether a group is the batch span processor's worker thread, by the name the kernel keeps (15
 * characters): the Java SDK's BatchSpanProcessor_WorkerThread-1 is "BatchSpanProces"; Python's
 * OtelBatchSpanRecordProcessor, where the runtime names its OS threads, "OtelBatchSpanRe".
 */
export function isBatchWorker(group: string): boolean {
  return /batchspan/i.test(group);
}

export interface ThreadGroupRow {
  group: string;
  batchWorker: boolean;
  threads: string;
  rounds: number;
  cpuPerRequest: string;
  ctxPerRequest: string;
  cpuPerSpan: string;
  ctxPerSpan: string;
}

export interface ThreadTable {
  configuration: string;
  /** What it ran with, "threads 64, cores 2"; "" for the service's defaults. */
  concurrency: string;
  rows: ThreadGroupRow[];
}

function figure(value: number | null | undefined): string {
  return typeof value === "number" && Number.isFinite(value) ? significant(value) : UNKNOWN;
}

/** A configuration's groups as rows: the batch processor's worker first, then the API's order
 * (most CPU per request first). */
export function threadGroupRows(
  groups: Readonly<Record<string, ThreadGroupFigures>> | undefined,
): ThreadGroupRow[] {
  const rows = Object.entries(groups ?? {}).map(([group, g]) => ({
    group,
    batchWorker: isBatchWorker(group),
    threads: formatNumber(g.threads, 0),
    rounds: g.rounds,
    cpuPerRequest: figure(g.cpu_per_request_us),
    ctxPerRequest: figure(g.ctx_per_request),
    cpuPerSpan: figure(g.cpu_per_span_us),
    ctxPerSpan: figure(g.ctx_per_span),
  }));
  return [...rows.filter((row) => row.batchWorker), ...rows.filter((row) => !row.batchWorker)];
}

/** A table per measured configuration, in the spec's order, with the concurrency it ran with. */
export function threadTables(
  configurations: readonly ConfigurationAggregates[],
  order: readonly string[],
  concurrency: Readonly<Record<string, string>>,
): ThreadTable[] {
  const rank = (name: string) => {
    const index = order.indexOf(name);
    return index < 0 ? order.length : index;
  };
  return [...configurations]
    .sort((a, b) => rank(a.configuration) - rank(b.configuration))
    .map((c) => ({
      configuration: c.configuration,
      concurrency: concurrency[c.configuration] ?? "",
      rows: threadGroupRows(c.thread_groups),
    }));
}

/** Whether any configuration has a per-span figure (the per-span columns are shown then). */
export function hasPerSpanFigures(configurations: readonly ConfigurationAggregates[]): boolean {
  return configurations.some((c) =>
    Object.values(c.thread_groups ?? {}).some(
      (g) => g.cpu_per_span_us != null || g.ctx_per_span != null,
    ),
  );
}
