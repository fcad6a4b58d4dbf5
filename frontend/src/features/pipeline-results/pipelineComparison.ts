// The side-by-side table of a Collector pipeline experiment: a row per figure of the lab
// Collector (and what it passed on), a column per variant. The change against the baseline
// pipeline and the noise floor come from the diagnostics as they are (Change.summary and
// .direction), through the service table's rows (components/results/comparison.ts).

import type { PipelineAggregates, PipelineDiagnostics } from "../../api/types";
import { MAX_THROUGHPUT, type MetricDef } from "../../components/results/comparison";
import { pairedSideBySide, roundList, sideBySideKey } from "../../components/results/sideBySide";
import {
  formatBytes,
  formatCores,
  formatMicros,
  formatNumber,
  formatSpanRate,
  formatUtilization,
} from "../../lib/format";

/** A count or figure the API could not tell: "unknown", never 0 or a dash that reads as none. */
export const UNKNOWN = "unknown";

function known(format: (value: number) => string) {
  return (value: number | null): string => (value == null ? UNKNOWN : format(value));
}

function count(value: number): string {
  return formatNumber(value, 0);
}

export const PIPELINE_METRICS: MetricDef<PipelineAggregates>[] = [
  {
    key: "spans_per_s",
    label: "Spans/s taken in",
    description:
      "Spans per second the lab Collector's receiver accepted over the measured phase, median over rounds",
    value: (a) => a.spans_per_s,
    format: known(formatSpanRate),
    overheadKey: null,
  },
  {
    key: "cpu_cores",
    label: "Collector CPU",
    description:
      "Cores the lab Collector used over the measured phase (user + system), median over rounds",
    value: (a) => a.cpu_cores,
    format: known(formatCores),
    overheadKey: "cpu_cores",
  },
  {
    key: "spans_per_s_per_core",
    label: "Spans/s per core",
    description: "Spans per second taken in for each core the lab Collector used",
    value: (a) => a.spans_per_s_per_core,
    format: known(formatSpanRate),
    overheadKey: null,
  },
  {
    key: "cores_per_10k_spans_s",
    label: "Cores per 10k spans/s",
    description:
      "Cores the lab Collector needs per 10,000 spans/s: what a capacity plan multiplies",
    value: (a) => a.cores_per_10k_spans_s,
    format: known(formatCores),
    overheadKey: "cores_per_10k_spans_s",
  },
  {
    key: "rss_max_bytes",
    label: "RSS peak",
    description: "Peak resident memory of the lab Collector, median over rounds",
    value: (a) => a.rss_max_bytes,
    format: known(formatBytes),
    overheadKey: "rss_max_bytes",
  },
  {
    key: "rss_steady_bytes",
    label: "RSS steady",
    description:
      "Median resident memory over the second half of the measured phase (what the pipeline settles at)",
    value: (a) => a.rss_steady_bytes,
    format: known(formatBytes),
    overheadKey: "rss_steady_bytes",
  },
  {
    key: "downstream_cpu_cores",
    label: "Downstream Collectors' CPU",
    description: "Cores of every downstream Collector the lab Collector sends to, summed",
    value: (a) => a.downstream_cpu_cores,
    format: known(formatCores),
    overheadKey: null,
  },
  {
    key: "kept_ratio",
    label: "Kept",
    description:
      "Share of the spans the lab Collector accepted that arrived downstream (a sampling pipeline keeps some on purpose)",
    value: (a) => a.kept_ratio,
    format: known(formatUtilization),
    overheadKey: null,
  },
  {
    key: "generated",
    label: "Spans generated",
    description: "Spans telemetrygen sent, summed over rounds",
    value: (a) => a.ledger_totals?.generated ?? null,
    format: known(count),
    overheadKey: null,
  },
  {
    key: "lost",
    label: "Spans lost",
    description:
      "Summed over rounds: spans generated that never arrived downstream; for a sampling pipeline, only what a stage reports losing (refused, failed, not enqueued, never received)",
    value: (a) => a.ledger_totals?.lost ?? null,
    format: known(count),
    overheadKey: "lost_spans",
  },
  {
    key: "not_arrived",
    label: "Spans not arrived downstream",
    description:
      "Summed over rounds: generated and never arrived downstream, whether lost or left out by sampling",
    value: (a) => a.ledger_totals?.not_arrived ?? null,
    format: known(count),
    overheadKey: null,
  },
];

/** The ramp's highest sustainable rate (as the service table's max throughput, for its limiter). */
export const MAX_SUSTAINABLE: MetricDef<PipelineAggregates> = {
  key: MAX_THROUGHPUT,
  label: "Max sustainable spans/s",
  description:
    "Highest span rate of the ramp the pipeline kept up with (accepted all, refused and failed none, queue not growing), median over rounds",
  value: (a) => a.max_sustainable_spans_per_s ?? null,
  format: known(formatSpanRate),
  overheadKey: null,
};

/**
 * The delay from a span's end in telemetrygen to its arrival downstream. It comes from the
 * Tempo read-back, which the diagnostics carry, not the aggregates: unknown until they load.
 */
function spanDelay(
  diagnostics: PipelineDiagnostics | undefined,
  key: "p50_us" | "p99_us",
): MetricDef<PipelineAggregates> {
  const percentile = key === "p50_us" ? "p50" : "p99";
  return {
    key: `delay_${key}`,
    label: `Span end → downstream ${percentile}`,
    description: `${percentile} of the time from a span's end in telemetrygen to its arrival at the downstream Collector, median over rounds: what the pipeline holds a span (batch timeout, sampling decision), plus telemetrygen's own export batching that every variant shares`,
    value: (a) => diagnostics?.span_delay[a.configuration]?.[key] ?? null,
    format: known(formatMicros),
    overheadKey: `delay_${key}`,
  };
}

type PipelineSideBySide = NonNullable<PipelineAggregates["side_by_side"]>;

/** The figures the side-by-side phase pairs (every variant's lab Collector live at once). */
const PAIRED: readonly {
  key: "cores_per_10k_spans_s" | "rss_max_bytes";
  label: string;
  value: (side: PipelineSideBySide) => number | null;
  format: (value: number | null) => string;
}[] = [
  {
    key: "cores_per_10k_spans_s",
    label: "Cores per 10k spans/s",
    value: (s) => s.cores_per_10k_spans_s,
    format: known(formatCores),
  },
  {
    key: "rss_max_bytes",
    label: "RSS peak",
    value: (s) => s.rss_max_bytes,
    format: known(formatBytes),
  },
];

/**
 * The solo rows with, after the RSS peak, a "… side by side" row per paired figure when some
 * variant ran the side-by-side phase; the change moves to it when the diagnostics paired it
 * there (as a service's table does, components/results/sideBySide.ts).
 */
function withSideBySide(
  configurations: readonly PipelineAggregates[],
  diagnostics?: PipelineDiagnostics,
): MetricDef<PipelineAggregates>[] {
  if (!configurations.some((c) => c.side_by_side)) return PIPELINE_METRICS;
  const use = diagnostics?.side_by_side;
  const moved = new Set<string>(
    PAIRED.filter((p) => pairedSideBySide(use, p.key)).map((p) => p.key),
  );
  const alone = PIPELINE_METRICS.map((metric) =>
    moved.has(metric.key)
      ? {
          ...metric,
          description: `${metric.description}; each variant alone (its change is in the side-by-side row)`,
          overheadKey: null,
        }
      : metric,
  );
  const paired: MetricDef<PipelineAggregates>[] = PAIRED.map((p) => ({
    key: sideBySideKey(p.key),
    label: `${p.label} side by side`,
    description: `${p.label} in the rounds' side-by-side phase (every variant's lab Collector live at once on the lab core, each under its own telemetrygen), median over rounds`,
    value: (a) => (a.side_by_side ? p.value(a.side_by_side) : null),
    format: p.format,
    overheadKey: moved.has(p.key) ? p.key : null,
  }));
  const after = alone.findIndex((metric) => metric.key === "rss_max_bytes") + 1;
  return [...alone.slice(0, after), ...paired, ...alone.slice(after)];
}

/** The rows to show: the side-by-side ones when the phase ran, the ramp's when some variant has one. */
export function pipelineMetrics(
  configurations: readonly PipelineAggregates[],
  diagnostics?: PipelineDiagnostics,
): MetricDef<PipelineAggregates>[] {
  const ramp = configurations.some((c) => c.max_sustainable_spans_per_s != null);
  const delays = [spanDelay(diagnostics, "p50_us"), spanDelay(diagnostics, "p99_us")];
  return [
    ...withSideBySide(configurations, diagnostics),
    ...delays,
    ...(ramp ? [MAX_SUSTAINABLE] : []),
  ];
}

/**
 * The line under the table when the phase ran: the API's note, the rounds paired side by side,
 * and per variant the rounds whose phase failed (those rounds are paired from the solo windows).
 */
export function pipelineSideBySideLines(
  configurations: readonly PipelineAggregates[],
  diagnostics: PipelineDiagnostics | undefined,
  totalRounds: number,
): { note: string | null; problems: string[] } {
  const use = diagnostics?.side_by_side;
  const rounds =
    use && use.rounds.length === totalRounds
      ? "every round"
      : `${roundList(use?.rounds ?? [])} (the others' from each variant alone: the phase failed)`;
  const problems = configurations.flatMap((c) =>
    (c.side_by_side?.failed_rounds ?? []).map(
      (f) => `${c.configuration} round ${f.round + 1}: ${f.error}`,
    ),
  );
  return { note: use ? `${use.note}. Paired side by side in ${rounds}.` : null, problems };
}

/** Per variant, what limited its ramp (the API's words), when there was one. */
export function rampLimits(
  configurations: readonly PipelineAggregates[],
): Record<string, string | null> {
  return Object.fromEntries(
    configurations.map((c) => [
      c.configuration,
      c.ramp_limited_by && c.ramp_limited_by.length > 0 ? c.ramp_limited_by.join(", ") : null,
    ]),
  );
}
