// The side-by-side table's rows: one metric per row, one cell per configuration, each cell
// with its percent difference against the baseline. The diagnostics will add an interval and a
// significance flag per cell (CellData.interval / .significant); the table renders them when set.

import type { ConfigurationAggregates } from "../../api/types";
import { formatBytes, formatMicros, formatNumber, formatRate, percentDiff } from "../../lib/format";

export interface MetricDef {
  key: string;
  label: string;
  /** What the row means, for the row header's description. */
  description: string;
  value: (aggregates: ConfigurationAggregates) => number | null;
  format: (value: number | null) => string;
  /** Which direction is an improvement; null for rows without a comparison. */
  better: "lower" | "higher" | null;
  /** Text for a value the backend does not measure yet. */
  unknownText?: string;
}

const latency = (key: "p50" | "p90" | "p99" | "p99.9"): MetricDef => ({
  key,
  label: key,
  description: `${key.slice(1)}th percentile latency, from the merged histogram of every round (coordinated omission corrected)`,
  value: (a) => a.latency_us?.[key] ?? null,
  format: formatMicros,
  better: "lower",
});

export const METRICS: MetricDef[] = [
  latency("p50"),
  latency("p90"),
  latency("p99"),
  latency("p99.9"),
  {
    key: "max",
    label: "max",
    description: "Slowest request measured",
    value: (a) => a.latency_us?.max ?? null,
    format: formatMicros,
    better: "lower",
  },
  {
    key: "max_throughput",
    label: "Max throughput",
    description: "Closed-loop requests per second, median over rounds",
    value: (a) => a.max_throughput_rps,
    format: formatRate,
    better: "higher",
  },
  {
    key: "cpu_per_request",
    label: "CPU per request",
    description:
      "Service CPU time (user + system) per request in the measured phase, median over rounds",
    value: (a) => a.cpu_per_request_us,
    format: formatMicros,
    better: "lower",
  },
  {
    key: "rss",
    label: "RSS",
    description: "Peak resident memory of the service, median over rounds",
    value: (a) => a.rss_max_bytes,
    format: formatBytes,
    better: "lower",
  },
  {
    key: "ctx_per_request",
    label: "Context switches / request",
    description: "Voluntary and involuntary, over all threads, median over rounds",
    value: (a) => a.ctx_per_request,
    format: (v) => formatNumber(v, 2),
    better: "lower",
  },
  {
    key: "dropped_spans",
    label: "Dropped spans",
    description: "Spans the SDK dropped, from the span ledger",
    value: () => null,
    format: () => "unknown",
    better: "lower",
    unknownText: "unknown",
  },
];

export interface CellData {
  configuration: string;
  value: number | null;
  text: string;
  isBaseline: boolean;
  /** Percent difference against the baseline; null for the baseline or a missing value. */
  diffPercent: number | null;
  /** Confidence interval of diffPercent, when the diagnostics provide one. */
  interval?: readonly [number, number];
  /** The difference is statistically significant (diagnostics). */
  significant?: boolean;
  /** Worse than the baseline in this metric's direction (null: no difference or no direction). */
  worse: boolean | null;
}

export interface RowData {
  metric: MetricDef;
  cells: CellData[];
}

export function comparisonRows(
  configurations: readonly ConfigurationAggregates[],
  baseline: string,
  metrics: readonly MetricDef[] = METRICS,
): RowData[] {
  const base = configurations.find((c) => c.configuration === baseline);
  return metrics.map((metric) => ({
    metric,
    cells: configurations.map((aggregates) => {
      const value = metric.value(aggregates);
      const isBaseline = aggregates.configuration === baseline;
      const diff = isBaseline || !base ? null : percentDiff(value, metric.value(base));
      return {
        configuration: aggregates.configuration,
        value,
        text: metric.unknownText ?? metric.format(value),
        isBaseline,
        diffPercent: diff,
        worse:
          diff == null || diff === 0 || metric.better == null
            ? null
            : metric.better === "lower"
              ? diff > 0
              : diff < 0,
      };
    }),
  }));
}
