// A tuning run's stored spec and experiments as words (the spec is a dict in the OpenAPI: a
// TuningSpec dumped whole, tuning/spec.py), and its budgets as the report names them.

import type { TuningDetail } from "../../api/types";
import { formatNumber } from "../../lib/format";

type Dict = Record<string, unknown>;

const dict = (value: unknown): Dict =>
  typeof value === "object" && value !== null ? (value as Dict) : {};
const num = (value: unknown): number | null =>
  typeof value === "number" && Number.isFinite(value) ? value : null;

/** The service tuned: "go", or a command's "python (your service: checkout)". */
export function serviceText(spec: Dict): string {
  const service = dict(spec.service);
  const language = typeof service.language === "string" ? service.language : "unknown";
  if (service.kind !== "command") return language;
  const name = typeof service.service_name === "string" ? `: ${service.service_name}` : "";
  return `${language} (your service${name})`;
}

/** "200 req/s for 20 s after a 5 s warm-up, 16 connections; a burst ×5 from 5 s for 3 s". */
export function loadText(spec: Dict): string {
  const load = dict(spec.load);
  const rate = num(load.rate);
  const duration = num(load.duration_s);
  const warmup = num(load.warmup_s);
  const connections = num(load.connections);
  const parts = [
    rate === null ? "rate unknown" : `${formatNumber(rate)} req/s`,
    duration === null ? null : `for ${formatNumber(duration)} s`,
    warmup === null ? null : `after a ${formatNumber(warmup)} s warm-up`,
  ].filter(Boolean);
  let text = parts.join(" ");
  if (connections !== null) text += `, ${formatNumber(connections, 0)} connections`;
  const burst = load.burst == null ? null : dict(load.burst);
  if (burst) {
    text += `; a burst ×${formatNumber(num(burst.multiplier))} from ${formatNumber(num(burst.start_s))} s for ${formatNumber(num(burst.duration_s))} s`;
  }
  return text;
}

/** The budgets by key, as TuningBudgets has them; null where the spec has none. */
export function budgetsOf(spec: Dict): Record<BudgetKey, number | null> {
  const budgets = dict(spec.budgets);
  return {
    p99_overhead_pct: num(budgets.p99_overhead_pct),
    cpu_overhead_pct: num(budgets.cpu_overhead_pct),
    max_lost_spans: num(budgets.max_lost_spans),
  };
}

export type BudgetKey = "p99_overhead_pct" | "cpu_overhead_pct" | "max_lost_spans";

const BUDGETS: Record<string, { label: string; limit: (value: number) => string }> = {
  p99_overhead_pct: { label: "p99 overhead", limit: (v) => `≤ ${formatNumber(v)}%` },
  cpu_overhead_pct: { label: "CPU overhead", limit: (v) => `≤ ${formatNumber(v)}%` },
  max_lost_spans: { label: "Spans lost in the SDK", limit: (v) => `≤ ${formatNumber(v, 0)}` },
};

/**
 * What a key of `choice.out_of_reach` names (tuning/tradeoff.py `choose`): a budget, "together"
 * (each met by some setting, none meeting all) or "measurements" (nothing was measured); with
 * the budget's limit when the spec has it.
 */
export function outOfReachLabel(key: string, spec: Dict): string {
  if (key === "together") return "Every budget at once";
  if (key === "measurements") return "Measurements";
  const budget = BUDGETS[key];
  if (!budget) return key;
  const limit = budgetsOf(spec)[key as BudgetKey];
  return limit === null ? budget.label : `${budget.label} ${budget.limit(limit)}`;
}

/** The budgets as one line: "p99 overhead ≤ 10%, CPU overhead ≤ 20%, Spans lost in the SDK ≤ 0". */
export function budgetsText(spec: Dict): string {
  const budgets = budgetsOf(spec);
  const lines = (Object.keys(BUDGETS) as BudgetKey[])
    .filter((key) => budgets[key] !== null)
    .map((key) => `${BUDGETS[key].label} ${BUDGETS[key].limit(budgets[key] as number)}`);
  return lines.length > 0 ? lines.join(", ") : "unknown";
}

/** "3 rounds a rung, 5 confirmation rounds". */
export function roundsText(spec: Dict): string {
  const rounds = num(spec.rounds);
  const confirm = num(spec.confirm_rounds);
  return `${rounds ?? "unknown"} rounds a rung, ${confirm ?? "unknown"} confirmation rounds`;
}

export function wallTimeOf(spec: Dict): number | null {
  return num(spec.wall_time_s);
}

/**
 * Each experiment of the run, in the order it ran, with what it was: the probe first
 * (tuning/search.py `tune`), the rungs and the confirmation as the report names them; while the
 * run goes on, the ones the report does not name yet by their place.
 */
export function runExperiments(detail: TuningDetail): { id: string; label: string }[] {
  const report = detail.report;
  return detail.experiment_ids.map((id, index) => {
    if (report?.confirmation_id === id) return { id, label: "confirmation" };
    const rung = report?.rungs.findIndex((r) => r.experiment_id === id) ?? -1;
    if (report && rung >= 0) {
      const { measure_s, outcomes } = report.rungs[rung];
      const sampled = outcomes.length > 0 && outcomes.every((o) => o.sampled);
      return {
        id,
        label: `rung ${rung + 1}${sampled ? ", sampled variants" : ""} (${formatNumber(measure_s)} s a phase)`,
      };
    }
    if (index === 0) return { id, label: "probe" };
    return { id, label: `experiment ${index + 1}` };
  });
}
