// How an overhead Interval of the diagnostics reads: the estimate, its 95% interval, and why
// there is none when there is none. Overhead is in percent of the baseline; positive is worse.

import type { Interval } from "../../api/types";
import { formatInterval, formatPercent, MISSING } from "../../lib/format";

export interface OverheadText {
  /** "+39.8 %"; "—" without an estimate. */
  estimate: string;
  /** "[+31.1 %, +48.5 %]"; null without an interval. */
  range: string | null;
  /** Why something is missing ("an interval needs at least 2 rounds"), from the API. */
  note: string | null;
  significant: boolean;
  /** Against the baseline, by the estimate's sign; null without one or at exactly zero. */
  direction: "worse" | "better" | null;
}

function isNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** An Interval as text; null for no interval at all. */
export function describeOverhead(interval: Interval | null | undefined): OverheadText | null {
  if (!interval) return null;
  const { estimate, low, high } = interval;
  const range = isNumber(low) && isNumber(high) ? formatInterval([low, high]) : null;
  const note =
    interval.note ??
    (range == null && isNumber(estimate) ? "no interval" : null) ??
    (isNumber(estimate) ? null : "not measured");
  return {
    estimate: isNumber(estimate) ? formatPercent(estimate) : MISSING,
    range,
    note,
    significant: interval.significant === true,
    direction: !isNumber(estimate) || estimate === 0 ? null : estimate > 0 ? "worse" : "better",
  };
}

/** One line: "+39.8 % [+31.1 %, +48.5 %], significant" or "+194 % (no interval: …)". */
export function overheadSummary(interval: Interval | null | undefined): string {
  const text = describeOverhead(interval);
  if (!text) return MISSING;
  const parts = [text.estimate];
  if (text.range) parts.push(` ${text.range}`);
  else if (text.note) parts.push(` (${text.note})`);
  if (text.significant) parts.push(", significant");
  return parts.join("");
}

/** Whether an unknown JSON value (a rule's evidence) is an Interval. */
export function isInterval(value: unknown): value is Interval {
  return (
    typeof value === "object" &&
    value !== null &&
    "estimate" in value &&
    "significant" in value &&
    !Array.isArray(value)
  );
}
