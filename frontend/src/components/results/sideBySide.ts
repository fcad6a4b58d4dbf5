// The side-by-side phase in a service's results. Every round starts with all configurations live
// at once on the service cores; CPU per request, RSS and p50 are paired from that phase (the
// diagnostics' `side_by_side` says which metrics and rounds), tails and max throughput from each
// configuration alone. So the table gets a row per paired metric with the side-by-side value,
// and the change against the baseline (and its noise floor) sits on the row it was computed
// from: the side-by-side one when the diagnostics paired it there, else the configuration-alone
// one, as before. The UI only places what the API computed; it never recomputes a change.

import type { ConfigurationAggregates, Diagnostics } from "../../api/types";
import { formatBytes, formatMicros, formatNumber } from "../../lib/format";
import { METRICS, type MetricDef } from "./comparison";

type SideBySide = NonNullable<ConfigurationAggregates["side_by_side"]>;
type SideBySideUse = NonNullable<Diagnostics["side_by_side"]>;
export type PrecisionRecord = NonNullable<Diagnostics["precision"]>;

/** A paired metric: its overhead key, the alone row it belongs beside, its side-by-side figure. */
const PAIRED: readonly {
  overheadKey: string;
  alone: string;
  label: string;
  value: (side: SideBySide) => number | null;
  format: (value: number | null) => string;
}[] = [
  { overheadKey: "p50", alone: "p50", label: "p50", value: (s) => s.p50_us, format: formatMicros },
  {
    overheadKey: "cpu_per_request_us",
    alone: "cpu_per_request",
    label: "CPU per request",
    value: (s) => s.cpu_per_request_us,
    format: formatMicros,
  },
  {
    overheadKey: "rss_max_bytes",
    alone: "rss",
    label: "RSS",
    value: (s) => s.rss_max_bytes,
    format: formatBytes,
  },
];

/** A side-by-side row's key in the table (`data-metric`). */
export const sideBySideKey = (alone: string) => `${alone}_side_by_side`;

/** Whether the diagnostics paired `overheadKey` in at least one round's side-by-side phase. */
export function pairedSideBySide(use: SideBySideUse | null | undefined, overheadKey: string) {
  if (!use?.metrics.includes(overheadKey)) return false;
  // p50 is paired only from the rounds whose phase was not flagged for a busy core.
  return (overheadKey === "p50" ? use.latency_rounds : use.rounds).length > 0;
}

/**
 * The service table's rows: METRICS, with a "… side by side" row after the RSS row for each
 * metric some configuration measured side by side; the change moves to it when it was paired
 * there. Without a side-by-side phase, METRICS as they are.
 */
export function serviceMetrics(
  configurations: readonly ConfigurationAggregates[],
  use: SideBySideUse | null | undefined,
): MetricDef[] {
  if (!configurations.some((c) => c.side_by_side)) return METRICS;
  const moved = new Set(
    PAIRED.filter((p) => pairedSideBySide(use, p.overheadKey)).map((p) => p.alone),
  );
  const alone = METRICS.map((metric) =>
    moved.has(metric.key)
      ? {
          ...metric,
          description: `${metric.description}; each configuration alone (its change is in the side-by-side row)`,
          overheadKey: null,
        }
      : metric,
  );
  const paired: MetricDef[] = PAIRED.map((p) => ({
    key: sideBySideKey(p.alone),
    label: `${p.label} side by side`,
    description: `${p.label} in the rounds' side-by-side phase (every configuration live at once on the service cores), median over rounds`,
    value: (a) => (a.side_by_side ? p.value(a.side_by_side) : null),
    format: p.format,
    overheadKey: moved.has(p.alone) ? p.overheadKey : null,
  }));
  const after = alone.findIndex((metric) => metric.key === "rss") + 1;
  return [...alone.slice(0, after), ...paired, ...alone.slice(after)];
}

/** "rounds 1, 2 and 4" (rounds counted from 1); "no round" when empty. */
export function roundList(rounds: readonly number[]): string {
  if (rounds.length === 0) return "no round";
  const names = rounds.map(String);
  const last = names.pop();
  return `round${rounds.length === 1 ? "" : "s"} ${names.length ? `${names.join(", ")} and ` : ""}${last}`;
}

/** The line under the table: the API's note, then which rounds each paired metric came from. */
export function sideBySideLine(use: SideBySideUse, totalRounds: number): string {
  const cpu =
    use.rounds.length === totalRounds
      ? "every round"
      : `${roundList(use.rounds)} (the others' from each configuration alone: the phase failed)`;
  const p50 =
    use.latency_rounds.length === use.rounds.length
      ? "the same rounds"
      : `${roundList(use.latency_rounds)} (the others' side-by-side phase was flagged for a busy core)`;
  return `${use.note}. CPU per request and RSS paired side by side in ${cpu}; p50 in ${p50}.`;
}

/** Per configuration, what went wrong in its side-by-side phases (failed or latency flagged). */
export function sideBySideProblems(
  configurations: readonly ConfigurationAggregates[],
): { configuration: string; text: string }[] {
  return configurations.flatMap((c) => {
    const side = c.side_by_side;
    if (!side) return [];
    const parts = [
      ...side.failed_rounds.map((f) => `round ${f.round + 1} failed: ${f.error}`),
      ...(side.latency_flagged_rounds.length > 0
        ? [
            `latency not used in ${roundList(side.latency_flagged_rounds.map((r) => r + 1))} (the cores were too busy)`,
          ]
        : []),
    ];
    return parts.length > 0 ? [{ configuration: c.configuration, text: parts.join("; ") }] : [];
  });
}

/** "Precision: reached after 8 rounds" / "Precision: not reached in the time budget …". */
export function precisionLine(record: PrecisionRecord): {
  reached: boolean;
  text: string;
  summary: string | null;
} {
  const reached = record.reached === true;
  const stopped = typeof record.stopped === "string" ? record.stopped : null;
  const rounds = typeof record.rounds === "number" ? record.rounds : null;
  const fallback = reached
    ? `reached after ${rounds ?? "?"} rounds`
    : `not reached${rounds != null ? ` after ${rounds} rounds` : ""}`;
  const elapsed =
    typeof record.elapsed_s === "number" ? ` (${formatNumber(record.elapsed_s, 0)} s)` : "";
  return {
    reached,
    text: `Precision: ${stopped ?? fallback}${elapsed}`,
    summary: typeof record.summary === "string" ? record.summary : null,
  };
}
