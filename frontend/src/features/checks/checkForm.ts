// The new-check form as plain data, and how it becomes the API's CheckRequest. Like the
// experiment form, inputs keep their text and the API validates (422s go beside the fields).
// Its load is the CLI's (warm-up 2 s, no max-throughput phase), so `tracetax check` flags can
// repeat any check made here.

import type { Budget, CheckRequest, Preset } from "../../api/types";
import {
  DEFAULT_LOAD,
  type LoadDraft,
  loadRequest,
  numberOrText,
} from "../../components/spec-form/loadForm";
import { BUDGET_LINES, type BudgetKey, CLI_LOAD } from "./commands";

export type BudgetDraft = Record<BudgetKey, string>;

/** A check's history fields, in both new-check forms. */
export interface HistoryDraft {
  /** Where the check comes from (provenance.branch, .commit); blank: not recorded. */
  branch: string;
  commit: string;
  /** The gate against history as the CLI writes it, `BRANCH[:N]`; blank: no gate. */
  againstHistory: string;
  /** The growth the gate allows, in percentage points; blank: the API's default. */
  maxGrowth: string;
}

/** Nothing recorded, no gate. */
export const NO_HISTORY: HistoryDraft = {
  branch: "",
  commit: "",
  againstHistory: "",
  maxGrowth: "",
};

export interface CheckFormState extends BudgetDraft, LoadDraft, HistoryDraft {
  language: string;
  baseline: string;
  candidate: string;
  /** OTEL_*=value, one per line. */
  candidateEnv: string;
  /** The request rate max_usd_per_month is priced at (budget.cost.requests_per_s); blank: the API's default. */
  costRate: string;
  strict: boolean;
  /** Sample the service's stacks, for the differential flame graph of where the added cost went. */
  sampleStacks: boolean;
  /** Buy rounds while a line is inconclusive, up to this wall time (s); blank: just `rounds`. */
  maxWallTime: string;
}

/** The CLI's defaults (`tracetax check --help`) and the documented example budget. */
export function initialCheckForm(languages: readonly string[], presets: readonly Preset[]) {
  const has = (name: string) => presets.some((p) => p.name === name);
  return {
    language: languages.includes("go") ? "go" : (languages[0] ?? ""),
    baseline: has("none") ? "none" : (presets[0]?.name ?? ""),
    candidate: has("batch-default") ? "batch-default" : (presets[0]?.name ?? ""),
    candidateEnv: "",
    ...DEFAULT_LOAD,
    rounds: "3",
    p50_overhead_pct: "",
    p99_overhead_pct: "15",
    cpu_overhead_pct: "20",
    p50_added_ms: "",
    p99_added_ms: "",
    cpu_added_us: "",
    max_dropped_spans: "0",
    max_bytes_per_request: "",
    max_usd_per_month: "",
    costRate: "",
    strict: false,
    sampleStacks: false,
    maxWallTime: "",
    ...NO_HISTORY,
  } satisfies CheckFormState;
}

/** "KEY=value" lines (blank lines skipped; a line without "=" is a key with an empty value). */
export function parseEnvLines(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    const at = line.indexOf("=");
    if (at < 0) env[line] = "";
    else env[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return env;
}

/** `provenance` from the branch and commit typed; undefined when neither was. */
export function provenanceRequest(form: Pick<HistoryDraft, "branch" | "commit">) {
  const provenance: Record<string, string> = {};
  if (form.branch.trim()) provenance.branch = form.branch.trim();
  if (form.commit.trim()) provenance.commit = form.commit.trim();
  return Object.keys(provenance).length > 0 ? provenance : undefined;
}

/**
 * `against_history` from "BRANCH[:N]" and the growth allowed, as `--against-history` and
 * `--history-max-growth-pct` read them; undefined when blank. A count that is not a number is sent as
 * typed, so the API's message about it shows beside the field.
 */
export function againstHistoryRequest(form: Pick<HistoryDraft, "againstHistory" | "maxGrowth">) {
  const text = form.againstHistory.trim();
  if (!text) return undefined;
  const at = text.lastIndexOf(":");
  const gate: Record<string, unknown> = { branch: at < 0 ? text : text.slice(0, at) };
  if (at >= 0) gate.points = numberOrText(text.slice(at + 1)) ?? text.slice(at + 1);
  const growth = numberOrText(form.maxGrowth);
  if (growth !== undefined) gate.max_growth_pct = growth;
  return gate;
}

export function toCheckRequest(form: CheckFormState): CheckRequest {
  const env = parseEnvLines(form.candidateEnv);
  const budget: Budget = {};
  for (const { key } of BUDGET_LINES) {
    const value = numberOrText(form[key]);
    if (value !== undefined) (budget as Record<string, unknown>)[key] = value;
  }
  const rate = numberOrText(form.costRate);
  if (rate !== undefined) (budget as Record<string, unknown>).cost = { requests_per_s: rate };
  const provenance = provenanceRequest(form);
  const againstHistory = againstHistoryRequest(form);
  return {
    subject: "service",
    service: { kind: "demo", language: form.language },
    baseline: { preset: form.baseline },
    candidate: {
      preset: form.candidate,
      ...(Object.keys(env).length > 0 ? { env } : {}),
    },
    ...loadRequest(form, {
      warmup_s: CLI_LOAD.warmup_s,
      max_throughput_s: CLI_LOAD.max_throughput_s,
    }),
    budget,
    strict: form.strict,
    ...(form.sampleStacks ? { sample_stacks: true } : {}),
    ...(numberOrText(form.maxWallTime) !== undefined
      ? { max_wall_time_s: numberOrText(form.maxWallTime) }
      : {}),
    ...(provenance ? { provenance } : {}),
    ...(againstHistory ? { against_history: againstHistory } : {}),
  } as unknown as CheckRequest;
}
