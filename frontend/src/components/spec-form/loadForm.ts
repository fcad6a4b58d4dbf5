// The load and rounds of a check or a calibration, as typed: what `tracetax check` and
// `tracetax calibrate` take as flags (rate, duration, rounds, work and spans per request); the
// rest of the load is fixed as the command runs it. One place for both forms, so a calibration
// made in the UI serves the checks made there.

import { parseNumber } from "./form";

export interface LoadDraft {
  rate: string;
  duration_s: string;
  rounds: string;
  iters: string;
  spans: string;
}

/** The commands' defaults (`tracetax check --help`); rounds differ by command. */
export const DEFAULT_LOAD: Omit<LoadDraft, "rounds"> = {
  rate: "200",
  duration_s: "10",
  iters: "1000",
  spans: "5",
};

/** A typed number as a number, anything else as typed for the API to judge; blank: undefined. */
export function numberOrText(text: string): number | string | undefined {
  const parsed = parseNumber(text);
  if (parsed === undefined) return undefined;
  return Number.isNaN(parsed) ? text : parsed;
}

/** The request's `load` (the fixed part and what was typed) and `rounds` when one was typed. */
export function loadRequest(
  draft: LoadDraft,
  fixed: Record<string, number>,
): { load: Record<string, unknown>; rounds?: number | string } {
  const query: Record<string, number | string> = {};
  const iters = numberOrText(draft.iters);
  const spans = numberOrText(draft.spans);
  if (iters !== undefined) query.iters = iters;
  if (spans !== undefined) query.spans = spans;
  const load: Record<string, unknown> = { ...fixed, query };
  const rate = numberOrText(draft.rate);
  const duration = numberOrText(draft.duration_s);
  if (rate !== undefined) load.rate = rate;
  if (duration !== undefined) load.duration_s = duration;
  const rounds = numberOrText(draft.rounds);
  return rounds === undefined ? { load } : { load, rounds };
}
