// How long an experiment will take: the same formula as ExperimentSpec.estimated_seconds in
// backend/tracetax/spec/service.py — every round of every configuration starts the service
// (3 s), warms up, measures, samples stacks (when on), finds the maximum throughput and stops
// (2 s); and, when the side-by-side phase runs, every round starts with all configurations at
// once: start, its warm-up, the phase, stop and settle. The start, stop and settle times are the
// ones the backend publishes (ExperimentSpec's `x-estimate`).

import { OPENAPI_EXTENSIONS } from "../../api/openapiConstants";
import { type FormState, parseNumber, SPEC_DEFAULTS } from "./form";

export const {
  startup_s: STARTUP_S,
  stop_s: STOP_S,
  settle_s: SETTLE_S,
  side_by_side_default_max_s: SIDE_BY_SIDE_DEFAULT_MAX_S,
} = OPENAPI_EXTENSIONS.ExperimentSpec["x-estimate"];

export interface EstimateInput {
  warmup_s: number;
  duration_s: number;
  max_throughput_s: number;
  configurations: number;
  rounds: number;
  /** The stacks phase after the measured one; 0 when stacks are not sampled. */
  stacks_s?: number;
  /** The side-by-side phase and its warm-up; 0 (or absent) when the phase does not run. */
  side_by_side_s?: number;
  side_by_side_warmup_s?: number;
}

/** One round's side-by-side phase: start all, warm up, measure, stop, let the cores settle. */
export function sideBySideSeconds(input: EstimateInput): number {
  const seconds = input.side_by_side_s ?? 0;
  if (seconds <= 0 || input.configurations < 2) return 0;
  return STARTUP_S + (input.side_by_side_warmup_s ?? 0) + seconds + STOP_S + SETTLE_S;
}

/** One configuration's run in a round: start, warm up, measure, stacks, closed loop, stop. */
function perRunSeconds(input: EstimateInput): number {
  return (
    STARTUP_S +
    input.warmup_s +
    input.duration_s +
    (input.stacks_s ?? 0) +
    input.max_throughput_s +
    STOP_S
  );
}

export function estimatedSeconds(input: EstimateInput): number {
  return (perRunSeconds(input) * input.configurations + sideBySideSeconds(input)) * input.rounds;
}

/**
 * Whether the side-by-side phase can run for the form's service (ExperimentSpec.runs_side_by_side):
 * a demo always; a command only with `{port}` in its argv and no fixed pprof port.
 */
export function runsTwice(form: Pick<FormState, "kind" | "command">): boolean {
  if (form.kind !== "command") return true;
  const placeholder = form.command.argv.some((row) => row.value.includes("{port}"));
  return placeholder && form.command.pprof_port.trim() === "";
}

/**
 * The estimate for a form; null while a field it needs is not a usable number. `perRun` is one
 * configuration's run alone, `sideBySide` one round's side-by-side phase (0 when it does not run),
 * `upTo` the wall-time budget when a precision is asked for (rounds are then added up to it).
 */
export function estimateForm(
  form: FormState,
): { seconds: number; perRun: number; sideBySide: number; upTo: number | null } | null {
  const value = (text: string, fallback: number) => parseNumber(text) ?? fallback;
  const duration_s = value(form.load.duration_s, SPEC_DEFAULTS.duration_s);
  const warmup_s = value(form.load.warmup_s, SPEC_DEFAULTS.warmup_s);
  const input: EstimateInput = {
    warmup_s,
    duration_s,
    max_throughput_s: value(form.load.max_throughput_s, SPEC_DEFAULTS.max_throughput_s),
    configurations: form.configurations.length,
    rounds: value(form.rounds, SPEC_DEFAULTS.rounds),
    stacks_s: form.sampleStacks ? SPEC_DEFAULTS.stacks_s : 0,
    // Blank: as long as the measured phase, up to the backend's cap (SideBySideTiming); its
    // warm-up (not in the form) as long as warmup_s.
    side_by_side_s: runsTwice(form)
      ? value(form.load.side_by_side_s, Math.min(duration_s, SIDE_BY_SIDE_DEFAULT_MAX_S))
      : 0,
    side_by_side_warmup_s: warmup_s,
  };
  const usable = Object.values(input).every((n) => Number.isFinite(n) && n >= 0);
  if (!usable || input.configurations === 0 || input.rounds <= 0) return null;
  const seconds = estimatedSeconds(input);
  const perRun = perRunSeconds(input);
  const budget = form.precision.enabled ? parseNumber(form.precision.max_wall_time_s) : undefined;
  const upTo = budget !== undefined && Number.isFinite(budget) && budget > 0 ? budget : null;
  return { seconds, perRun, sideBySide: sideBySideSeconds(input), upTo };
}
