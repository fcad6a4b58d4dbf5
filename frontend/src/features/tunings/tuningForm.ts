// The new-tuning form as plain data, and how it becomes the API's TuningSpec. Like the other
// forms, inputs keep their text and the API validates: a 422 goes beside the field it names
// (wall_time_s too small for one candidate says the least that fits), and in the summary.
// The service is a demo or "your service" (a command, with the new-experiment form's drafts and
// field components); the concurrency (threads, workers, GOMAXPROCS, cores) holds for every
// measurement of the run.

import type { Concurrency, ServiceInfo } from "../../api/types";
import {
  type ConcurrencyDraft,
  concurrencyIssueTarget,
  concurrencyKnobs,
  emptyConcurrency,
  toConcurrency,
} from "../../components/spec-form/concurrencyForm";
import { commandServiceTarget, requestLoadTarget } from "../../components/spec-form/errors";
import {
  AGENT_LANGUAGES,
  type CommandDraft,
  commandService,
  initialCommand,
  initialRequest,
  type RequestDraft,
  requestLoad,
  type ServiceKind,
} from "../../components/spec-form/form";
import { numberOrText } from "../../components/spec-form/loadForm";

export interface TuningFormState {
  name: string;
  /** A demo service, or the user's own command. */
  kind: ServiceKind;
  /** The demo service's language (kind "demo"). */
  language: string;
  /** "Your service" (kind "command"): the command, and what each request of its load is. */
  command: CommandDraft;
  request: RequestDraft;
  /** The service's concurrency in every measurement; blank knobs are its defaults. */
  concurrency: ConcurrencyDraft;
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

export type TextField = Exclude<
  keyof TuningFormState,
  "burst" | "kind" | "command" | "request" | "concurrency"
>;

/** The body POST /api/v1/tunings is sent: what was typed, blanks left to the API's defaults. */
export interface TuningBody {
  name?: string;
  service: { kind: "demo"; language: string } | ReturnType<typeof commandService>;
  processor: string;
  load: Record<string, unknown>;
  concurrency?: Concurrency;
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

/**
 * Whether a command in `language` can be tuned with `processor`: its own SDK always, the
 * zero-code agent in Python, Java and Node (a Go binary's eBPF agent has no OTEL_BSP_* to tune).
 */
export function commandProcessorAvailability(
  language: string,
  processor: string,
): { available: boolean; why: string | null } {
  if (processor !== "agent" || (AGENT_LANGUAGES as readonly string[]).includes(language)) {
    return { available: true, why: null };
  }
  return {
    available: false,
    why:
      language === "go"
        ? "no zero-code agent for Go"
        : "a zero-code agent needs Python, Java or Node",
  };
}

/** Whether the form's service can be tuned with `processor`, and if not, why. */
export function launchAvailability(
  form: Pick<TuningFormState, "kind" | "command">,
  service: ServiceInfo | undefined,
  processor: string,
): { available: boolean; why: string | null } {
  return form.kind === "command"
    ? commandProcessorAvailability(form.command.language, processor)
    : processorAvailability(service, processor);
}

/** The API's defaults (TuningSpec, LoadSpec) and a budget of 20 minutes; no burst. */
export function initialTuningForm(languages: readonly string[]): TuningFormState {
  return {
    name: "",
    kind: "demo",
    language: languages.includes("go") ? "go" : (languages[0] ?? ""),
    command: initialCommand(),
    request: initialRequest(),
    concurrency: emptyConcurrency(),
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

/**
 * The body to POST. A command's load carries its requests (method, paths, headers, body); the
 * concurrency only the knobs the service has that were typed in, and none when none was.
 */
export function toTuningBody(form: TuningFormState, services: readonly ServiceInfo[]): TuningBody {
  const command = form.kind === "command";
  const load: Record<string, unknown> = {};
  put(load, "rate", form.rate);
  put(load, "warmup_s", form.warmup_s);
  put(load, "duration_s", form.duration_s);
  put(load, "connections", form.connections);
  if (command) Object.assign(load, requestLoad(form.request));
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
  const concurrency = toConcurrency(form.concurrency, concurrencyKnobs(form, services));
  return {
    ...(name ? { name } : {}),
    service: command ? commandService(form.command) : { kind: "demo", language: form.language },
    processor: form.processor,
    load,
    ...(concurrency ? { concurrency } : {}),
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
  const command = form.kind === "command";
  switch (head) {
    case "name":
    case "processor":
    case "rounds":
    case "confirm_rounds":
    case "wall_time_s":
      return second === undefined ? head : null;
    case "service":
      return command
        ? commandServiceTarget(form.command, field.split(".").slice(1))
        : "service.language";
    case "concurrency":
      return concurrencyIssueTarget("concurrency", second);
    case "load":
      if (second === undefined) return "load";
      if (LOAD_NUMBERS.includes(second)) return `load.${second}`;
      if (second === "burst" && form.burst) {
        return third !== undefined && BURST_NUMBERS.includes(third)
          ? `load.burst.${third}`
          : "load.burst";
      }
      return command ? requestLoadTarget(form.request, field.split(".").slice(1)) : null;
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
