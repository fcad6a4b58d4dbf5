// Which of the stack's components the engine found not ready before or after a round
// (`stack_health`, engine/experiment.py `record_stack_health`), and what that leaves unknown.
// The API keeps the record open (`dict`) on the round, or in its resources for raw rounds, so
// it is read tolerantly; rounds stored before the probe existed have none.

import type { RoundRaw, RoundSummary } from "../../api/types";

type AnyRound = RoundSummary | RoundRaw;

/** What runs a round's telemetry through the stack: a service's SDK, or a Collector pipeline. */
export type StackSubject = "service" | "pipeline";

export interface StackDownRound {
  /** "batch round 2": the diagnostics' name of a round, counting from 1. */
  label: string;
  /** The components not ready, by the probe's names: "collector", "metrics", "tempo", "loki". */
  down: string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The components found down around a round; empty when all were ready or nothing says. */
export function stackDown(round: AnyRound): string[] {
  const resources = "resources" in round && isObject(round.resources) ? round.resources : null;
  const raw: unknown = round.stack_health ?? resources?.stack_health;
  if (!isObject(raw) || !Array.isArray(raw.down)) return [];
  return raw.down.filter((name): name is string => typeof name === "string" && name !== "");
}

/**
 * The completed rounds during which a component of the stack was down, in the order they ran
 * (the rounds the diagnostics' `stack_down_rounds` name). A failed round says why on its own.
 */
export function stackDownRounds(rounds: readonly AnyRound[]): StackDownRound[] {
  return [...rounds]
    .filter((round) => round.status === "completed")
    .sort((a, b) => a.round_index - b.round_index || a.order_index - b.order_index)
    .map((round) => ({
      label: `${round.configuration} round ${round.round_index + 1}`,
      down: stackDown(round),
    }))
    .filter((round) => round.down.length > 0);
}

// A service's ledger stages read through each component (diagnostics/ledger.py
// COLLECTOR_STAGE_SOURCES and STORED_SOURCES): the diagnostics make them unknown.
const SERVICE_STAGES: Record<string, string[]> = {
  collector: ["Collector"],
  metrics: ["Collector", "stored request counter"],
  tempo: ["stored spans"],
  loki: ["stored log records"],
};

// A pipeline's own counters are scraped from its Collectors directly; only what reached Tempo,
// through the stack's Collector, depends on the stack.
const PIPELINE_STAGES: Record<string, string[]> = {
  collector: ["stored"],
  tempo: ["stored"],
};

/** "a", "a and b", "a, b and c". */
function listed(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** The ledger stages the components being down leave unknown (service) or short (pipeline). */
export function affectedStages(down: readonly string[], subject: StackSubject): string[] {
  const stages = subject === "service" ? SERVICE_STAGES : PIPELINE_STAGES;
  return [...new Set(down.flatMap((name) => stages[name] ?? []))];
}

/**
 * One round's sentence: "batch round 2: collector, tempo were down: its Collector and stored
 * spans stages read unknown".
 */
export function stackDownSentence(round: StackDownRound, subject: StackSubject): string {
  const who = `${round.label}: ${round.down.join(", ")} ${round.down.length === 1 ? "was" : "were"} down`;
  const stages = affectedStages(round.down, subject);
  if (stages.length === 0)
    return `${who}: its ledger does not read from ${round.down.length === 1 ? "it" : "them"}`;
  if (subject === "pipeline") {
    return `${who}: its stored stage may be short of what the pipeline delivered (spans lost there are the stack's, not the pipeline's)`;
  }
  return `${who}: its ${listed(stages)} ${stages.length === 1 ? "stage reads" : "stages read"} unknown`;
}

/**
 * Why each component was down around a round, by when it was probed: "tempo (before and
 * after): HTTP 503". Empty when none was.
 */
export function stackDownReasons(round: AnyRound): string[] {
  const resources = "resources" in round && isObject(round.resources) ? round.resources : null;
  const raw: unknown = round.stack_health ?? resources?.stack_health;
  if (!isObject(raw)) return [];
  const before = isObject(raw.before) ? raw.before : {};
  const after = isObject(raw.after) ? raw.after : {};
  return stackDown(round).map((name) => {
    const when = [name in before ? "before" : null, name in after ? "after" : null].filter(Boolean);
    const reasons = [
      ...new Set([before[name], after[name]].filter((r) => typeof r === "string" && r !== "")),
    ];
    const timing = when.length > 0 ? ` (${when.join(" and ")})` : "";
    return `${name}${timing}${reasons.length > 0 ? `: ${reasons.join("; ")}` : ""}`;
  });
}
