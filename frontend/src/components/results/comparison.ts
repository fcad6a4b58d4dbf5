// The side-by-side table's rows: one metric per row, one cell per configuration. A cell's
// change against the baseline (absolute and relative with 95% intervals, direction after
// Holm) comes from the diagnostics API as it is: the UI never recomputes it. Until the
// diagnostics arrive, the cells show the measured values alone.

import type { Change, ConfigurationAggregates, Diagnostics, NoiseFloor } from "../../api/types";
import { formatBytes, formatMicros, formatNumber, formatRate } from "../../lib/format";

/** A row of a side-by-side table over aggregates `A` (a service's, by default, or a pipeline's). */
export interface MetricDef<A = ConfigurationAggregates> {
  key: string;
  label: string;
  /** What the row means, for the row header's description. */
  description: string;
  value: (aggregates: A) => number | null;
  format: (value: number | null) => string;
  /** The metric's key in Diagnostics.overhead and .noise_floor; null when it has no interval. */
  overheadKey: string | null;
}

const latency = (key: "p50" | "p90" | "p99" | "p99.9" | "p99.99"): MetricDef => ({
  key,
  label: key,
  description: `${key.slice(1)}th percentile latency, from the merged histogram of every round (coordinated omission corrected)`,
  value: (a) => a.latency_us?.[key] ?? null,
  format: formatMicros,
  overheadKey: key,
});

export const METRICS: MetricDef[] = [
  latency("p50"),
  latency("p90"),
  latency("p99"),
  latency("p99.9"),
  latency("p99.99"),
  {
    key: "max",
    label: "max",
    description: "Slowest request measured",
    value: (a) => a.latency_us?.max ?? null,
    format: formatMicros,
    overheadKey: null,
  },
  {
    key: "max_throughput",
    label: "Max throughput",
    description: "Closed-loop requests per second, median over rounds",
    value: (a) => a.max_throughput_rps,
    format: formatRate,
    overheadKey: "max_throughput_rps",
  },
  {
    key: "cpu_per_request",
    label: "CPU per request",
    description:
      "Service CPU time (user + system) per request in the measured phase, median over rounds",
    value: (a) => a.cpu_per_request_us,
    format: formatMicros,
    overheadKey: "cpu_per_request_us",
  },
  {
    key: "rss",
    label: "RSS",
    description: "Peak resident memory of the service, median over rounds",
    value: (a) => a.rss_max_bytes,
    format: formatBytes,
    overheadKey: "rss_max_bytes",
  },
  {
    key: "ctx_per_request",
    label: "Context switches / request",
    description: "Voluntary and involuntary, over all threads, median over rounds",
    value: (a) => a.ctx_per_request,
    format: (v) => formatNumber(v, 2),
    overheadKey: null,
  },
  {
    key: "dropped_spans",
    label: "Dropped spans",
    description:
      "Spans the SDK dropped (its own queue-full counter, summed over rounds), from the diagnostics",
    // Filled in from Diagnostics.dropped_spans by comparisonRows.
    value: () => null,
    format: (v) => (v == null ? "unknown" : formatNumber(v, 0)),
    overheadKey: null,
  },
];

export const DROPPED_SPANS = "dropped_spans";
export const MAX_THROUGHPUT = "max_throughput";

export interface CellData {
  configuration: string;
  value: number | null;
  text: string;
  isBaseline: boolean;
  /** The change against the baseline, from the diagnostics; null for the baseline, a metric
   *  without one, or while the diagnostics are not there. */
  overhead: Change | null;
  /** Significant after Holm's correction over the configuration's metrics (diagnostics). */
  significant: boolean;
  /** worse / better / unchanged / unknown, as the API decided it; null without a change. */
  direction: Change["direction"] | null;
  /** What limited the max throughput when it was not the service ("load generator"). */
  limitedBy: string | null;
}

export interface RowData<A = ConfigurationAggregates> {
  metric: MetricDef<A>;
  cells: CellData[];
  /** The smallest change this experiment can tell from noise, for metrics that have one. */
  noiseFloor: NoiseFloor | null;
}

/** What the rows read of the diagnostics: a pipeline's have no dropped spans. */
type DiagnosticsPart = Pick<Diagnostics, "overhead" | "noise_floor"> &
  Partial<Pick<Diagnostics, "dropped_spans">>;

export function comparisonRows<A extends { configuration: string } = ConfigurationAggregates>(
  configurations: readonly A[],
  baseline: string,
  diagnostics: DiagnosticsPart | null | undefined,
  metrics: readonly MetricDef<A>[] = METRICS as unknown as MetricDef<A>[],
  /** Per configuration, what limited its max throughput when not the service (rounds.ts). */
  limits: Readonly<Record<string, string | null>> = {},
): RowData<A>[] {
  return metrics.map((metric) => ({
    metric,
    noiseFloor: (metric.overheadKey && diagnostics?.noise_floor[metric.overheadKey]) || null,
    cells: configurations.map((aggregates) => {
      const name = aggregates.configuration;
      const isBaseline = name === baseline;
      const value =
        metric.key === DROPPED_SPANS
          ? (diagnostics?.dropped_spans?.[name] ?? null)
          : metric.value(aggregates);
      const overhead =
        isBaseline || !metric.overheadKey
          ? null
          : (diagnostics?.overhead[name]?.[metric.overheadKey] ?? null);
      return {
        configuration: name,
        value,
        text: metric.format(value),
        isBaseline,
        overhead,
        significant: overhead?.significant ?? false,
        direction: overhead?.direction ?? null,
        limitedBy: metric.key === MAX_THROUGHPUT ? (limits[name] ?? null) : null,
      };
    }),
  }));
}
