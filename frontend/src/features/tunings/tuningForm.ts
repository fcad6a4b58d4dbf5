// The new-tuning form as plain data, and how it becomes the API's TuningSpec. Like the other
// forms, inputs keep their text and the API validates: a 422 goes beside the field it names
// (wall_time_s too small for one candidate says the least that fits), and in the summary.
// Demo services only; a service of one's own is tuned through the API or `tracetax tune SPEC`.

import type { ServiceInfo } from "../../api/types";
import { numberOrText } from "../checks/loadForm";

export interface TuningFormState {
  name: string;
  language: string;
  /** The instrumented launch to tune: the service's own SDK ("batch") or its zero-code agent. */
  processor: string;
  rate: string;
  warmup_s: string;
  duration_s: string;
  connections: string;
  /** Whether the measured phase has a burst (load.burst). */
  burst: boolean;
  burst_start_s: string;
  burst_duration_s: string;
  burst_multiplier: string;
  p99_overhead_pct: string;
  cpu_overhead_pct: string;
  max_lost_spans: string;
  rounds: string;
  confirm_rounds: string;
  wall_time_s: string;
}

export type TextField = Exclude<keyof TuningFormState, "burst">;

/** The body POST /api/v1/tunings is sent: what was typed, blanks left to the API's defaults. */
export interface TuningBody {
  name?: string;
  service: { kind: "demo"; language: string };
  processor: string;
  load: Record<string, unknown>;
  budgets: Record<string, number | string>;
  rounds?: number | string;
  confirm_rounds?: number | string;
  wall_time_s?: number | string;
}

/** The launches a tuning can tune (TuningSpec.processor), as the demo services name their modes. */
export const PROCESSORS = [
  { value: "batch", label: "batch: the service's own SDK" },
  { value: "agent", label: "agent: its zero-code agent" },
] as const;

/** Whether `service` can run `processor` here, and if not, why (its mode's own reason). */
export function processorAvailability(
  service: ServiceInfo | undefined,
  processor: string,
): { available: boolean; why: string | null } {
  const mode = service?.modes.find((m) => m.name === processor);
  if (!service || !mode) {
    return { available: false, why: `${service?.language ?? "this service"} has no ${processor}` };
  }
  return { available: mode.available, why: mode.available ? null : (mode.why ?? "unavailable") };
}

/** The API's defaults (TuningSpec, LoadSpec) and a budget of 20 minutes; no burst. */
export function initialTuningForm(languages: readonly string[]): TuningFormState {
  return {
    name: "",
    language: languages.includes("go") ? "go" : (languages[0] ?? ""),
    processor: "batch",
    rate: "200",
    warmup_s: "5",
    duration_s: "20",
    connections: "16",
    burst: false,
    burst_start_s: "5",
    burst_duration_s: "3",
    burst_multiplier: "5",
    p99_overhead_pct: "10",
    cpu_overhead_pct: "20",
    max_lost_spans: "0",
    rounds: "3",
    confirm_rounds: "5",
    wall_time_s: "1200",
  };
}

function put(target: Record<string, unknown>, key: string, text: string) {
  const value = numberOrText(text);
  if (value !== undefined) target[key] = value;
}

export function toTuningBody(form: TuningFormState): TuningBody {
  const load: Record<string, unknown> = {};
  put(load, "rate", form.rate);
  put(load, "warmup_s", form.warmup_s);
  put(load, "duration_s", form.duration_s);
  put(load, "connections", form.connections);
  if (form.burst) {
    const burst: Record<string, unknown> = {};
    put(burst, "start_s", form.burst_start_s);
    put(burst, "duration_s", form.burst_duration_s);
    put(burst, "multiplier", form.burst_multiplier);
    load.burst = burst;
  }
  const budgets: Record<string, number | string> = {};
  put(budgets, "p99_overhead_pct", form.p99_overhead_pct);
  put(budgets, "cpu_overhead_pct", form.cpu_overhead_pct);
  put(budgets, "max_lost_spans", form.max_lost_spans);
  const runs: Record<string, unknown> = {};
  put(runs, "rounds", form.rounds);
  put(runs, "confirm_rounds", form.confirm_rounds);
  put(runs, "wall_time_s", form.wall_time_s);
  const name = form.name.trim();
  return {
    ...(name ? { name } : {}),
    service: { kind: "demo", language: form.language },
    processor: form.processor,
    load,
    budgets,
    ...(runs as Pick<TuningBody, "rounds" | "confirm_rounds" | "wall_time_s">),
  };
}

const LOAD_NUMBERS = ["rate", "warmup_s", "duration_s", "connections"];
const BURST_NUMBERS = ["start_s", "duration_s", "multiplier"];
const BUDGET_NUMBERS = ["p99_overhead_pct", "cpu_overhead_pct", "max_lost_spans"];

/**
 * Where the form shows the API's messages about `field` (a 422 path such as "load.burst.start_s"):
 * the field path of the input, or of the part of the form that edits it ("load" for the load as a
 * whole: a burst ending after the measured phase); null when the form has nothing that edits it.
 */
export function tuningIssueTarget(form: TuningFormState, field: string): string | null {
  const [head, second, third] = field.split(".");
  switch (head) {
    case "name":
    case "processor":
    case "rounds":
    case "confirm_rounds":
    case "wall_time_s":
      return second === undefined ? head : null;
    case "service":
      return "service.language";
    case "load":
      if (second === undefined) return "load";
      if (LOAD_NUMBERS.includes(second)) return `load.${second}`;
      if (second === "burst" && form.burst) {
        return third !== undefined && BURST_NUMBERS.includes(third)
          ? `load.burst.${third}`
          : "load.burst";
      }
      return null;
    case "budgets":
      if (second === undefined) return "budgets";
      return BUDGET_NUMBERS.includes(second) ? `budgets.${second}` : null;
    default:
      return null;
  }
}

/** The run takes at most its wall-time budget; null until that is a usable number. */
export function tuningSeconds(form: TuningFormState): number | null {
  const seconds = Number(form.wall_time_s);
  return form.wall_time_s.trim() !== "" && seconds > 0 ? seconds : null;
}
