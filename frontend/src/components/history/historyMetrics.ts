// The metrics a check remembers (checks.overheads, GET /api/v1/history): what each is called,
// and how its values read in their unit. Shared by the History page, a service's page and a
// check's page; a value the check could not measure (null) reads "unknown", never 0.

import { ApiError } from "../../api/client";
import {
  formatBytes,
  formatChangePercent,
  formatInterval,
  formatSignedInUnit,
} from "../../lib/format";
import { formatUsd } from "../results/costFigures";

export const UNKNOWN = "unknown";

export interface HistoryMetric {
  /** The API's name (?metric=, the keys of a check's overheads). */
  name: string;
  /** The chart's heading and a table's column. */
  label: string;
  /** What a value is, for a caption. */
  meaning: string;
  /** Its unit as a check's overheads store it: a change in %, bytes, or $/month. */
  unit: "pct" | "bytes" | "usd";
}

/** In the order the History page draws them. */
export const HISTORY_METRICS: readonly HistoryMetric[] = [
  {
    name: "p50",
    unit: "pct",
    label: "p50 latency overhead",
    meaning: "the candidate's p50 latency against the baseline's, in the same run",
  },
  {
    name: "p99",
    unit: "pct",
    label: "p99 latency overhead",
    meaning: "the candidate's p99 latency against the baseline's, in the same run",
  },
  {
    name: "cpu_per_request_us",
    unit: "pct",
    label: "CPU per request overhead",
    meaning: "the candidate's CPU time per request against the baseline's, in the same run",
  },
  {
    name: "bytes_per_request",
    unit: "bytes",
    label: "OTLP bytes per request",
    meaning: "what the candidate exports per request",
  },
  {
    name: "usd_per_month",
    unit: "usd",
    label: "Δ$/month",
    meaning: "what the candidate costs a month more than the baseline, at the check's cost inputs",
  },
];

export function metricLabel(name: string): string {
  return HISTORY_METRICS.find((metric) => metric.name === name)?.label ?? name;
}

const known = (value: number | null | undefined): value is number =>
  typeof value === "number" && Number.isFinite(value);

function signedUsd(value: number): string {
  const text = formatUsd(value);
  return value > 0 && !/^\$0(\.0+)?$/.test(text) ? `+${text}` : text;
}

/**
 * A value in its unit ("pct", "bytes" or "usd"): a change in % and $/month is signed; bytes per
 * request are the candidate's own unless `signed` (a shift between two levels).
 */
export function formatMetricValue(
  value: number | null | undefined,
  unit: string,
  signed = false,
): string {
  if (!known(value)) return UNKNOWN;
  if (unit === "pct") return formatChangePercent(value);
  if (unit === "usd") return signedUsd(value);
  if (unit === "bytes") return signed ? formatSignedInUnit(value, "bytes") : formatBytes(value);
  return formatSignedInUnit(value, unit);
}

/** "[+1.2%, +4.0%]"; "no interval" when either end is unknown. */
export function formatMetricInterval(
  low: number | null | undefined,
  high: number | null | undefined,
  unit: string,
  signed = false,
): string {
  if (!known(low) || !known(high)) return "no interval";
  return formatInterval([low, high], (value) => formatMetricValue(value, unit, signed));
}

/** "+3.1% [+1.2%, +4.0%]", or "unknown". */
export function formatEstimate(
  figure: { estimate?: number | null; low?: number | null; high?: number | null },
  unit: string,
  signed = false,
): string {
  if (!known(figure.estimate)) return UNKNOWN;
  const value = formatMetricValue(figure.estimate, unit, signed);
  if (!known(figure.low) || !known(figure.high)) return value;
  return `${value} ${formatMetricInterval(figure.low, figure.high, unit, signed)}`;
}

/** A commit as people quote it: its first 7 characters. */
export function shortSha(commit: string | null | undefined): string | null {
  return commit ? commit.slice(0, 7) : null;
}

/** The History page's filters, as its URL carries them. */
export interface HistoryFilters {
  service: string;
  configuration: string;
  branch?: string | null;
  machine?: string | null;
}

/** `/history?service=…&configuration=…[&branch=…][&machine=…]`: a filter left blank is left out. */
export function historyPath(filters: Partial<HistoryFilters>): string {
  const query = new URLSearchParams();
  for (const key of ["service", "configuration", "branch", "machine"] as const) {
    const value = filters[key];
    if (value) query.set(key, value);
  }
  const text = query.toString();
  return text ? `/history?${text}` : "/history";
}

/** The API's answer when nothing was checked yet for these filters (404 with its sentence):
 * an empty state that says how to start a history, not an error. */
export function isNoHistory(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status === 404;
}
