// How long an experiment will take: the same formula as ExperimentSpec.estimated_seconds in
// backend/tracetax/spec/service.py — every round of every configuration starts the service
// (3 s), warms up, measures, samples stacks (when on), finds the maximum throughput and stops
// (2 s); the start and stop times are the ones the backend publishes (ExperimentSpec's
// `x-estimate`).

import { OPENAPI_EXTENSIONS } from "../../api/openapiConstants";
import { type FormState, parseNumber, SPEC_DEFAULTS } from "./form";

export const { startup_s: STARTUP_S, stop_s: STOP_S } =
  OPENAPI_EXTENSIONS.ExperimentSpec["x-estimate"];

export interface EstimateInput {
  warmup_s: number;
  duration_s: number;
  max_throughput_s: number;
  configurations: number;
  rounds: number;
  /** The stacks phase after the measured one; 0 when stacks are not sampled. */
  stacks_s?: number;
}

export function estimatedSeconds(input: EstimateInput): number {
  const perRun =
    STARTUP_S +
    input.warmup_s +
    input.duration_s +
    (input.stacks_s ?? 0) +
    input.max_throughput_s +
    STOP_S;
  return perRun * input.configurations * input.rounds;
}

/** The estimate for a form; null while a field it needs is not a usable number. */
export function estimateForm(form: FormState): { seconds: number; perRun: number } | null {
  const value = (text: string, fallback: number) => parseNumber(text) ?? fallback;
  const input: EstimateInput = {
    warmup_s: value(form.load.warmup_s, SPEC_DEFAULTS.warmup_s),
    duration_s: value(form.load.duration_s, SPEC_DEFAULTS.duration_s),
    max_throughput_s: value(form.load.max_throughput_s, SPEC_DEFAULTS.max_throughput_s),
    configurations: form.configurations.length,
    rounds: value(form.rounds, SPEC_DEFAULTS.rounds),
    stacks_s: form.sampleStacks ? SPEC_DEFAULTS.stacks_s : 0,
  };
  const usable = Object.values(input).every((n) => Number.isFinite(n) && n >= 0);
  if (!usable || input.configurations === 0 || input.rounds <= 0) return null;
  const seconds = estimatedSeconds(input);
  return { seconds, perRun: seconds / (input.configurations * input.rounds) };
}
