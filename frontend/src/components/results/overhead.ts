// How a change against the baseline (Diagnostics.overhead[config][metric], a `Change`) and a
// noise floor (Diagnostics.noise_floor[metric]) read. The one formatter for them: the results
// table, the calibration page and the recommendation's evidence all write them through here,
// in the API's words (diagnostics/overhead.py `describe`, its direction words published in the
// OpenAPI): the absolute change in the metric's unit with its 95% interval, the relative change,
// and the direction after Holm:
// "+1.02 ms p50 (+0.95 to +1.09 ms) · +4.1% · worse".

import { OPENAPI_EXTENSIONS } from "../../api/openapiConstants";
import type { Change, Interval, NoiseFloor } from "../../api/types";
import {
  formatChangePercent,
  formatInterval,
  formatInUnit,
  formatPercent,
  formatSignedInUnit,
  formatSignedRange,
  MISSING,
} from "../../lib/format";

export type Direction = Change["direction"];

/** The API's words for a direction, as it publishes them (Change's `x-direction-words`). */
export const DIRECTION_WORDS: Record<Direction, string> =
  OPENAPI_EXTENSIONS.Change["x-direction-words"];

export interface ChangeText {
  /** The metric as the API names it: "p50", "max throughput". */
  label: string;
  /** "+1.02 ms"; "—" when not measured. */
  absolute: string;
  /** "+0.95 to +1.09 ms"; null without an interval. */
  absoluteRange: string | null;
  /** "+4.1%"; null when there is no relative change (a zero or unmeasured baseline). */
  relative: string | null;
  /** "+3.2% to +5.0%"; null without an interval. */
  relativeRange: string | null;
  direction: Direction;
  /** "worse", "better", "no significant change", "unknown". */
  words: string;
  significant: boolean;
  /** "p = 0.004 after Holm over 7 metrics (0.0006 alone), 5 paired rounds". */
  significance: string;
  /** "Holm p = 0.004 · 5 pairs": the same, short, for small text. */
  significanceShort: string;
  /** Why something is missing or not significant, from the API. */
  note: string | null;
  /** The whole change on one line, with the metric's label. */
  line: string;
  /** The same without the label (a table row already names the metric). */
  short: string;
  /** The server's own sentence. */
  summary: string;
}

function isNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** A p-value as text: "0.012", "< 0.001". */
export function formatP(p: number): string {
  if (p < 0.001) return "< 0.001";
  return p.toFixed(3);
}

function significanceText(change: Change): string {
  const pairs = `${change.pairs} paired round${change.pairs === 1 ? "" : "s"}`;
  if (!isNumber(change.p_adjusted)) return `no test (${pairs})`;
  const adjusted = formatP(change.p_adjusted);
  const p = adjusted.startsWith("<") ? `p ${adjusted}` : `p = ${adjusted}`;
  const alone = isNumber(change.p_value) ? ` (${formatP(change.p_value)} alone)` : "";
  const verdict = change.significant ? "significant" : "not significant";
  return `${verdict}: ${p} after Holm over the configuration's metrics${alone}, ${pairs}`;
}

function significanceShort(change: Change): string {
  const pairs = `${change.pairs} pair${change.pairs === 1 ? "" : "s"}`;
  if (!isNumber(change.p_adjusted)) return `${pairs}, no test`;
  const adjusted = formatP(change.p_adjusted);
  return `Holm p ${adjusted.startsWith("<") ? adjusted : `= ${adjusted}`} · ${pairs}`;
}

/** A change as text; null for no change at all (the baseline, or no diagnostics yet). */
export function describeChange(change: Change | null | undefined): ChangeText | null {
  if (!change) return null;
  const { absolute, relative_pct: relative } = change;
  const direction = change.direction ?? "unknown";
  const words = DIRECTION_WORDS[direction] ?? direction;
  const absoluteText = formatSignedInUnit(absolute.estimate, change.unit);
  const absoluteRange = formatSignedRange(absolute.low, absolute.high, change.unit);
  const relativeText = isNumber(relative.estimate) ? formatChangePercent(relative.estimate) : null;
  const relativeRange =
    isNumber(relative.low) && isNumber(relative.high)
      ? `${formatChangePercent(relative.low)} to ${formatChangePercent(relative.high)}`
      : null;
  let short: string;
  let line: string;
  if (!isNumber(absolute.estimate)) {
    short = "unknown";
    line = `${change.label}: unknown`;
  } else {
    const range = absoluteRange ? ` (${absoluteRange})` : "";
    const rest = [relativeText, words].filter(Boolean).join(" · ");
    short = `${absoluteText}${range} · ${rest}`;
    line = `${absoluteText} ${change.label}${range} · ${rest}`;
  }
  return {
    label: change.label,
    absolute: absoluteText,
    absoluteRange,
    relative: relativeText,
    relativeRange,
    direction,
    words,
    significant: change.significant === true,
    significance: significanceText(change),
    significanceShort: significanceShort(change),
    note: change.note ?? null,
    line,
    short,
    summary: change.summary,
  };
}

/** One line for a change: "+1.02 ms p50 (+0.95 to +1.09 ms) · +4.1% · worse". */
export function changeLine(change: Change | null | undefined): string {
  return describeChange(change)?.line ?? MISSING;
}

export interface NoiseFloorText {
  known: boolean;
  /** "±6.4%"; null when unknown. */
  relative: string | null;
  /** "±38.4 µs" (at the baseline's level); null when unknown. */
  absolute: string | null;
  /** "at 5 paired rounds". */
  pairs: string;
  /** "±6.4% (±38.4 µs) at 5 paired rounds", or "unknown". */
  line: string;
  note: string | null;
}

/** A metric's noise floor as text; null for a metric without one. */
export function describeNoiseFloor(floor: NoiseFloor | null | undefined): NoiseFloorText | null {
  if (!floor) return null;
  const known = isNumber(floor.relative_pct);
  const relative = known
    ? `±${formatChangePercent(floor.relative_pct).replace(/^[+−]/, "")}`
    : null;
  const absolute = isNumber(floor.absolute)
    ? `±${formatInUnit(Math.abs(floor.absolute), floor.unit)}`
    : null;
  const pairs = `at ${floor.pairs} paired round${floor.pairs === 1 ? "" : "s"}`;
  const line = known
    ? `${relative}${absolute ? ` (${absolute})` : ""} ${pairs}`
    : `unknown${floor.note ? ` (${floor.note})` : ""}`;
  return { known, relative, absolute, pairs, line, note: floor.note ?? null };
}

/** Whether an unknown JSON value (a rule's evidence) is an interval: {estimate, low, high}. */
export function isInterval(value: unknown): value is Interval {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    "estimate" in value &&
    "low" in value &&
    "high" in value
  );
}

/** A relative interval of the evidence: "+87 % [+42 %, +132 %]", or the estimate alone. */
export function intervalSummary(interval: Interval | null | undefined): string {
  if (!interval || !isNumber(interval.estimate)) return MISSING;
  const { low, high } = interval;
  const range = isNumber(low) && isNumber(high) ? ` ${formatInterval([low, high])}` : "";
  return `${formatPercent(interval.estimate)}${range}`;
}
