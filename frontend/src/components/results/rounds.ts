// What a round's records say beyond its figures: whether other processes used the service's
// cores during a measured phase (isolation, engine/isolation.py), how the service ended after
// SIGTERM (shutdown, engine/round.py `shutdown_record`) and what limited the max-throughput
// phase (limited_by, engine/isolation.py `decide_limiter`). The API leaves these records open
// (`dict`), so they are read tolerantly: isolation may be one record or {phase: record}, and
// older rounds have none of them.

import type { RoundRaw, RoundSummary } from "../../api/types";

type AnyRound = RoundSummary | RoundRaw;

export interface ForeignTask {
  pid: number | null;
  comm: string;
  cpu_s: number | null;
  kernel: boolean;
  /** The task exited during the phase (its CPU is what it had used until then). */
  exited: boolean;
}

export interface IsolationRecord {
  /** "open" (the measured phase), "closed" (max throughput); null for a single record. */
  phase: string | null;
  flagged: boolean;
  reasons: string[];
  foreign_cpu_s: number | null;
  foreign_cpu_share: number | null;
  service_run_delay_ms: number | null;
  foreign_tasks: ForeignTask[];
  /** Who used the foreign CPU and how much no task accounts for, in the backend's words. */
  foreign_explanation: string | null;
  note: string | null;
  error: string | null;
}

export interface ShutdownRecord {
  exit_code: number | null;
  clean: boolean;
  flushed: boolean;
  note: string | null;
}

export interface Limiter {
  /** "service", "load generator", "stack", "none", "unknown". */
  by: string;
  reason: string | null;
}

export const PHASE_NAMES: Record<string, string> = {
  "side-by-side": "side-by-side phase",
  side_by_side: "side-by-side phase",
  open: "measured phase",
  closed: "max-throughput phase",
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function str(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

function record(phase: string | null, raw: Record<string, unknown>): IsolationRecord {
  const tasks = Array.isArray(raw.foreign_tasks) ? raw.foreign_tasks.filter(isObject) : [];
  return {
    phase,
    flagged: raw.flagged === true,
    reasons: Array.isArray(raw.reasons) ? raw.reasons.map(String) : [],
    foreign_cpu_s: num(raw.foreign_cpu_s),
    foreign_cpu_share: num(raw.foreign_cpu_share),
    service_run_delay_ms: num(raw.service_run_delay_ms),
    foreign_tasks: tasks.map((task) => ({
      pid: num(task.pid),
      comm: str(task.comm) ?? "?",
      cpu_s: num(task.cpu_s),
      kernel: task.kernel === true || task.kernel_thread === true,
      exited: task.exited === true,
    })),
    foreign_explanation: str(raw.foreign_explanation),
    note: str(raw.note),
    error: str(raw.error),
  };
}

/** Every measured phase's isolation record of a round (empty when it has none). */
export function isolationRecords(round: AnyRound): IsolationRecord[] {
  const resources = "resources" in round && isObject(round.resources) ? round.resources : null;
  const raw: unknown = round.isolation ?? resources?.isolation;
  if (!isObject(raw)) return [];
  if ("flagged" in raw || "reasons" in raw) return [record(null, raw)];
  return Object.entries(raw)
    .filter((entry): entry is [string, Record<string, unknown>] => isObject(entry[1]))
    .map(([phase, value]) => record(phase, value));
}

/** Whether other processes used the service's cores during one of the round's measured phases. */
export function isFlagged(round: AnyRound): boolean {
  return isolationRecords(round).some((r) => r.flagged);
}

/** How the service ended after SIGTERM; null for rounds without the record. */
export function shutdownRecord(round: AnyRound): ShutdownRecord | null {
  const raw: unknown = round.shutdown;
  if (!isObject(raw)) return null;
  return {
    exit_code: num(raw.exit_code),
    clean: raw.clean === true,
    flushed: raw.flushed === true,
    note: str(raw.note),
  };
}

/** What limited the max-throughput phase; null when the round has no such phase or record. */
export function limiter(round: AnyRound): Limiter | null {
  const closed =
    "closed_phase" in round && isObject(round.closed_phase) ? round.closed_phase : null;
  const raw: unknown = round.limited_by ?? closed?.limited_by;
  const reason = str(closed?.limited_by_reason);
  if (typeof raw === "string" && raw !== "") return { by: raw, reason };
  if (isObject(raw) && typeof raw.limited_by === "string") {
    return { by: raw.limited_by, reason: str(raw.limited_by_reason) ?? str(raw.reason) ?? reason };
  }
  return null;
}

/** "limited by: load generator"; "no saturated core" for "none". */
export function limiterText(by: string): string {
  return `limited by: ${by === "none" ? "no saturated core" : by}`;
}

/**
 * Per configuration, what limited its max throughput when that was not the service, over its
 * completed rounds: "load generator", "stack in 1 of 3 rounds"; null when it was the service
 * in every round (or nothing says).
 */
export function throughputLimits(rounds: readonly AnyRound[]): Record<string, string | null> {
  const byConfiguration = new Map<string, Limiter[]>();
  for (const round of rounds) {
    if (round.status !== "completed") continue;
    const limit = limiter(round);
    if (!limit) continue;
    byConfiguration.set(round.configuration, [
      ...(byConfiguration.get(round.configuration) ?? []),
      limit,
    ]);
  }
  const result: Record<string, string | null> = {};
  for (const [configuration, limits] of byConfiguration) {
    const counts = new Map<string, number>();
    for (const limit of limits) counts.set(limit.by, (counts.get(limit.by) ?? 0) + 1);
    const others = [...counts].filter(([by]) => by !== "service");
    if (others.length === 0) {
      result[configuration] = null;
      continue;
    }
    result[configuration] = others
      .map(([by, count]) =>
        count === limits.length
          ? limiterText(by).replace(/^limited by: /, "")
          : `${limiterText(by).replace(/^limited by: /, "")} in ${count} of ${limits.length} rounds`,
      )
      .join("; ");
  }
  return result;
}
