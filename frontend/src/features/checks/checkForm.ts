// The new-check form as plain data, and how it becomes the API's CheckRequest. Like the
// experiment form, inputs keep their text and the API validates (422s go beside the fields).
// Its load is the CLI's (warm-up 2 s, no max-throughput phase), so `tracetax check` flags can
// repeat any check made here.

import type { Budget, CheckRequest, Preset } from "../../api/types";
import { parseNumber } from "../new-experiment/form";
import { BUDGET_LINES, type BudgetKey, CLI_LOAD } from "./commands";

export type BudgetDraft = Record<BudgetKey, string>;

export interface CheckFormState extends BudgetDraft {
  language: string;
  baseline: string;
  candidate: string;
  /** OTEL_*=value, one per line. */
  candidateEnv: string;
  rate: string;
  duration_s: string;
  rounds: string;
  iters: string;
  spans: string;
  strict: boolean;
}

/** The CLI's defaults (`tracetax check --help`) and the documented example budget. */
export function initialCheckForm(languages: readonly string[], presets: readonly Preset[]) {
  const has = (name: string) => presets.some((p) => p.name === name);
  return {
    language: languages.includes("go") ? "go" : (languages[0] ?? ""),
    baseline: has("none") ? "none" : (presets[0]?.name ?? ""),
    candidate: has("batch-default") ? "batch-default" : (presets[0]?.name ?? ""),
    candidateEnv: "",
    rate: "200",
    duration_s: "10",
    rounds: "3",
    iters: "1000",
    spans: "5",
    p50_overhead_pct: "",
    p99_overhead_pct: "15",
    cpu_overhead_pct: "20",
    p50_added_ms: "",
    p99_added_ms: "",
    cpu_added_us: "",
    max_dropped_spans: "0",
    strict: false,
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

function numberOrText(text: string): number | string | undefined {
  const parsed = parseNumber(text);
  if (parsed === undefined) return undefined;
  return Number.isNaN(parsed) ? text : parsed;
}

export function toCheckRequest(form: CheckFormState): CheckRequest {
  const env = parseEnvLines(form.candidateEnv);
  const budget: Budget = {};
  for (const { key } of BUDGET_LINES) {
    const value = numberOrText(form[key]);
    if (value !== undefined) (budget as Record<string, unknown>)[key] = value;
  }
  const query: Record<string, number | string> = {};
  const iters = numberOrText(form.iters);
  const spans = numberOrText(form.spans);
  if (iters !== undefined) query.iters = iters;
  if (spans !== undefined) query.spans = spans;
  const load = {
    warmup_s: CLI_LOAD.warmup_s,
    max_throughput_s: CLI_LOAD.max_throughput_s,
    query,
  } as CheckRequest["load"];
  const rate = numberOrText(form.rate);
  const duration = numberOrText(form.duration_s);
  if (rate !== undefined) load.rate = rate as number;
  if (duration !== undefined) load.duration_s = duration as number;
  const request = {
    service: { kind: "demo", language: form.language },
    baseline: { preset: form.baseline },
    candidate: {
      preset: form.candidate,
      ...(Object.keys(env).length > 0 ? { env } : {}),
    },
    load,
    budget,
    strict: form.strict,
  } as unknown as CheckRequest;
  const rounds = numberOrText(form.rounds);
  if (rounds !== undefined) request.rounds = rounds as number;
  return request;
}
