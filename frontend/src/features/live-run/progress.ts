// Turning `progress` events into what the live page shows.

import type { Phase, ProgressEvent } from "../../api/types";

export const PHASE_LABELS: Record<Phase, string> = {
  queued: "Waiting in the queue",
  starting: "Starting the service",
  warmup: "Warming up",
  "side-by-side": "Measuring side by side",
  measuring: "Measuring",
  stacks: "Sampling stacks",
  "max-throughput": "Finding the maximum throughput",
  draining: "Draining the pipeline",
  ramp: "Ramping up the span rate",
  stopping: "Stopping the service",
  aggregating: "Aggregating the results",
  collecting: "Collecting the ledger",
  finished: "Finished",
};

/** Where a Collector pipeline's run reads differently: it starts and stops Collectors. */
const PIPELINE_PHASE_LABELS: Partial<Record<Phase, string>> = {
  starting: "Starting the Collectors",
  stopping: "Stopping the Collectors",
};

/** A phase in words; `pipeline` for an experiment measuring a Collector pipeline. */
export function phaseLabel(phase: string, pipeline = false): string {
  return (
    (pipeline ? PIPELINE_PHASE_LABELS[phase as Phase] : undefined) ??
    PHASE_LABELS[phase as Phase] ??
    phase
  );
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}

/** Share of the whole run done (0..1): elapsed / (elapsed + remaining), else by slot. */
export function overallFraction(event: ProgressEvent): number | null {
  if (event.phase === "finished" || event.phase === "aggregating") return 1;
  if (event.phase === "queued") return 0;
  const elapsed = event.elapsed_s ?? 0;
  if (event.remaining_s != null && elapsed + event.remaining_s > 0) {
    return clamp01(elapsed / (elapsed + event.remaining_s));
  }
  if (event.slots) return clamp01((event.slot ?? 0) / event.slots);
  return null;
}

/** Share of the current phase done (0..1), when the phase has a known length. */
export function phaseFraction(event: ProgressEvent): number | null {
  if (!event.phase_duration_s || event.phase_duration_s <= 0) return null;
  return clamp01((event.phase_elapsed_s ?? 0) / event.phase_duration_s);
}

/** The phases of a round's side-by-side part: reported without a configuration. */
const TOGETHER_PHASES = new Set<string>(["starting", "warmup", "side-by-side"]);
export const ALL_SIDE_BY_SIDE = "all configurations side by side";

/**
 * Who the event is about: its configuration, or every configuration at once when a round's
 * side-by-side phase (its start and warm-up too) reports without one; null otherwise.
 */
export function whoRuns(event: Pick<ProgressEvent, "phase" | "configuration" | "round">) {
  if (event.configuration) return event.configuration;
  if (event.phase === "side-by-side") return ALL_SIDE_BY_SIDE;
  return TOGETHER_PHASES.has(event.phase) && event.round != null ? ALL_SIDE_BY_SIDE : null;
}

/** "batch-default · round 1 of 3 · run 2 of 6" (rounds and runs counted from 1). */
export function describePosition(event: ProgressEvent): string {
  const parts: string[] = [];
  const who = whoRuns(event);
  if (who) parts.push(who);
  if (event.round != null && event.rounds)
    parts.push(`round ${event.round + 1} of ${event.rounds}`);
  if (event.slots && event.phase !== "finished" && event.phase !== "aggregating") {
    parts.push(`run ${Math.min((event.slot ?? 0) + 1, event.slots)} of ${event.slots}`);
  }
  return parts.join(" · ");
}

/** The latest live rate, p99 and CPU, and which phase and configuration they came from. */
export interface Reading {
  rps: number | null;
  p99_us: number | null;
  cpu: number | null;
  phase: string;
  configuration: string | null;
}

/**
 * Keeps the last reading while events without one arrive: the measured phase reports rate and
 * p99 only when it ends, so the warm-up's values stay on screen (labelled) until then.
 */
export function nextReading(previous: Reading | null, event: ProgressEvent): Reading | null {
  const rps = event.current_rps ?? null;
  const p99 = event.current_p99_us ?? null;
  const cpu = event.service_cpu_utilization ?? null;
  if (rps == null && p99 == null && cpu == null) return previous;
  return {
    rps: rps ?? previous?.rps ?? null,
    p99_us: p99 ?? previous?.p99_us ?? null,
    cpu: cpu ?? previous?.cpu ?? null,
    phase: event.phase,
    configuration: whoRuns(event),
  };
}

const TICKING_PHASES = new Set([
  "starting",
  "warmup",
  "side-by-side",
  "measuring",
  "max-throughput",
  "draining",
  "ramp",
  "stopping",
]);

/**
 * The event as it stands `seconds` after it arrived: the clock runs on between events (the
 * measured phase sends none until it ends), bounded by the phase's length and the estimate.
 */
export function project(event: ProgressEvent, seconds: number): ProgressEvent {
  if (!TICKING_PHASES.has(event.phase) || !(seconds > 0)) return event;
  const phaseElapsed = (event.phase_elapsed_s ?? 0) + seconds;
  return {
    ...event,
    elapsed_s: (event.elapsed_s ?? 0) + seconds,
    remaining_s: event.remaining_s == null ? null : Math.max(0, event.remaining_s - seconds),
    phase_elapsed_s:
      event.phase_duration_s != null
        ? Math.min(event.phase_duration_s, phaseElapsed)
        : phaseElapsed,
  };
}
