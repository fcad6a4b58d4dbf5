// A check's request rebuilt from what the backend stored (its experiment's spec, its budget and
// strictness), and the curl and `tracetax check` commands that run the same check from a CI
// pipeline. The CLI's flags cannot say everything a request can (a baseline's own variables, a
// warm-up other than 2 s, …): then the CLI command takes the request from a file (--spec).

import type {
  Budget,
  CheckRequest,
  CheckStatus,
  ConfigurationSpec,
  ExperimentSpec,
  Preset,
} from "../../api/types";
import { formatNumber, formatPercent } from "../../lib/format";

type ConfigurationRequest = CheckRequest["baseline"];

/** What `tracetax check` sends when it is given no load flags (backend/tracetax/cli_check.py). */
export const CLI_LOAD = { warmup_s: 2, max_throughput_s: 0, connections: 16, path: "/work" };
export const JUNIT_FILE = "tracetax-junit.xml";

/**
 * Every budget line, in the backend's order (diagnostics/checks.py BUDGET_LINES): relative
 * ones in % of the baseline, absolute ones in ms or µs, and the SDK's dropped spans.
 */
export const BUDGET_LINES = [
  {
    key: "p50_overhead_pct",
    label: "p50 latency overhead",
    field: "Max p50 overhead (%)",
    flag: "--p50-overhead-pct",
    unit: "pct",
  },
  {
    key: "p99_overhead_pct",
    label: "p99 latency overhead",
    field: "Max p99 overhead (%)",
    flag: "--p99-overhead-pct",
    unit: "pct",
  },
  {
    key: "cpu_overhead_pct",
    label: "CPU per request overhead",
    field: "Max CPU per request overhead (%)",
    flag: "--cpu-overhead-pct",
    unit: "pct",
  },
  {
    key: "p50_added_ms",
    label: "p50 latency added",
    field: "Max p50 added (ms)",
    flag: "--p50-added-ms",
    unit: "ms",
  },
  {
    key: "p99_added_ms",
    label: "p99 latency added",
    field: "Max p99 added (ms)",
    flag: "--p99-added-ms",
    unit: "ms",
  },
  {
    key: "cpu_added_us",
    label: "CPU per request added",
    field: "Max CPU per request added (µs)",
    flag: "--cpu-added-us",
    unit: "us",
  },
  {
    key: "max_dropped_spans",
    label: "Spans dropped in the SDK",
    field: "Max dropped spans",
    flag: "--max-dropped-spans",
    unit: "spans",
  },
] as const;

export type BudgetKey = (typeof BUDGET_LINES)[number]["key"];
export type BudgetUnit = (typeof BUDGET_LINES)[number]["unit"];

/** The line a check adds when a measured phase was flagged for interference. */
export const ISOLATION_LINE = "isolation";

export function budgetLabel(name: string): string {
  if (name === ISOLATION_LINE) return "Isolation of the service's cores";
  return BUDGET_LINES.find((line) => line.key === name)?.label ?? name;
}

export function budgetUnit(name: string): BudgetUnit | null {
  return BUDGET_LINES.find((line) => line.key === name)?.unit ?? null;
}

/** A budget line's limit as text: "≤ 15 %", "≤ 0.5 ms", "≤ 20 µs", "≤ 0 spans". */
export function budgetLimit(name: string, value: number): string {
  if (name === ISOLATION_LINE) return "no flagged round";
  const unit = budgetUnit(name);
  if (unit === "spans") return `≤ ${formatNumber(value, 0)} spans`;
  if (unit === "ms") return `≤ ${formatNumber(value, 3)} ms`;
  if (unit === "us") return `≤ ${formatNumber(value, 2)} µs`;
  return `≤ ${formatPercent(value).replace(/^\+/, "")}`;
}

/** Every line the budget sets, as "p99 latency overhead ≤ 15 %". */
export function budgetSummary(budget: Budget): string[] {
  return BUDGET_LINES.filter((line) => budget[line.key] != null).map(
    (line) => `${line.label} ${budgetLimit(line.key, budget[line.key] as number)}`,
  );
}

function withoutNulls(budget: Budget): Budget {
  return Object.fromEntries(Object.entries(budget).filter(([, value]) => value != null)) as Budget;
}

/** "check: batch-default vs none" → the names the request gave its configurations. */
export function requestNames(experimentName: string | null | undefined): {
  baseline: string | null;
  candidate: string | null;
} {
  const match = /^check: (\S+) vs (\S+)$/.exec(experimentName ?? "");
  return { candidate: match?.[1] ?? null, baseline: match?.[2] ?? null };
}

/**
 * A stored configuration as the request that makes it again: by its preset and the variables
 * that differ from the preset's, or (when the preset's variables are not all there, or no
 * preset is known) by name, processor and every variable.
 */
export function configurationRequest(
  stored: ConfigurationSpec,
  name: string | null,
  presets: readonly Preset[],
): ConfigurationRequest {
  const env = stored.env ?? {};
  const preset = presets.find((p) => p.name === stored.preset);
  const presetEnv = preset?.env ?? {};
  if (preset && Object.keys(presetEnv).every((key) => key in env)) {
    const overrides = Object.fromEntries(
      Object.entries(env).filter(([key, value]) => presetEnv[key] !== value),
    );
    const request = { preset: preset.name } as ConfigurationRequest;
    if (name && name !== preset.name) request.name = name;
    if (stored.processor !== preset.processor) request.processor = stored.processor;
    if (Object.keys(overrides).length > 0) request.env = overrides;
    return request;
  }
  const request = {
    name: name ?? stored.preset ?? stored.processor,
    processor: stored.processor,
  } as ConfigurationRequest;
  if (Object.keys(env).length > 0) request.env = env;
  return request;
}

/** The request that runs this check again, from its experiment's stored spec. */
export function checkRequest(
  check: Pick<CheckStatus, "budget" | "strict">,
  spec: ExperimentSpec,
  presets: readonly Preset[],
): CheckRequest {
  const baseline = spec.configurations.find((c) => c.baseline) ?? spec.configurations[0];
  const candidate = spec.configurations.find((c) => c !== baseline) ?? baseline;
  const names = requestNames(spec.name);
  const request: CheckRequest = {
    service: spec.service,
    baseline: configurationRequest(baseline, names.baseline, presets),
    candidate: configurationRequest(candidate, names.candidate, presets),
    load: spec.load,
    budget: withoutNulls(check.budget),
    rounds: spec.rounds ?? 3,
    seed: spec.seed ?? 0,
    strict: check.strict,
  };
  if (!request.seed) delete (request as Partial<CheckRequest>).seed;
  return request;
}

/** A word for a POSIX shell: as it is when safe, else single-quoted. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function number(value: number | string | undefined | null): string {
  return String(value);
}

/** curl commands: queue the check, read its status, fetch the JUnit XML. */
export function curlCommands(baseUrl: string, request: CheckRequest): string {
  const base = baseUrl.replace(/\/+$/, "");
  const body = JSON.stringify(request, null, 2);
  return [
    `CHECK_ID=$(curl -sf -XPOST ${shellQuote(`${base}/api/v1/checks`)} \\`,
    "  -H 'content-type: application/json' \\",
    `  -d ${shellQuote(body)} | jq -r .id)`,
    `curl -sf ${shellQuote(`${base}/api/v1/checks/`)}"$CHECK_ID"   # status; "verdict" once finished`,
    `curl -sf ${shellQuote(`${base}/api/v1/checks/`)}"$CHECK_ID?format=junit" -o ${JUNIT_FILE}`,
  ].join("\n");
}

export interface CliCommand {
  command: string;
  /** True when the flags say exactly this request; else the command reads it from a file. */
  flags: boolean;
  /** Why the flags could not say it. */
  reasons: string[];
}

/** What `tracetax check --baseline/--candidate VALUE` makes of a value (cli_check._configuration). */
function cliConfiguration(
  value: string,
  overrides: Record<string, string>,
  presets: readonly Preset[],
): { processor: string; env: Record<string, string> } {
  const preset = presets.find((p) => p.name === value);
  if (preset) return { processor: preset.processor, env: { ...(preset.env ?? {}), ...overrides } };
  return { processor: value, env: { ...overrides } };
}

function sameEnv(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

/**
 * How the CLI spells a stored configuration: the value for --baseline / --candidate and the
 * --candidate-env overrides; null when no value and overrides make it.
 */
function cliSpelling(
  stored: ConfigurationSpec,
  presets: readonly Preset[],
): { value: string; overrides: Record<string, string> } | null {
  const env = stored.env ?? {};
  for (const value of [stored.preset, stored.processor]) {
    if (!value) continue;
    const base = cliConfiguration(value, {}, presets);
    if (base.processor !== stored.processor) continue;
    if (!Object.keys(base.env).every((key) => key in env)) continue;
    const overrides = Object.fromEntries(
      Object.entries(env).filter(([key, v]) => base.env[key] !== v),
    );
    if (sameEnv(cliConfiguration(value, overrides, presets).env, env)) return { value, overrides };
  }
  return null;
}

/** Why the CLI's flags cannot say this request (empty: they can). */
export function cliFlagProblems(spec: ExperimentSpec, presets: readonly Preset[]): string[] {
  const problems: string[] = [];
  if (spec.service.kind !== "demo") problems.push("the service is a command of your own");
  const load = spec.load;
  if ((load.warmup_s ?? 5) !== CLI_LOAD.warmup_s)
    problems.push(`a warm-up of ${load.warmup_s} s (the CLI uses ${CLI_LOAD.warmup_s} s)`);
  if ((load.max_throughput_s ?? 10) !== CLI_LOAD.max_throughput_s)
    problems.push(`a max-throughput phase of ${load.max_throughput_s} s (the CLI skips it)`);
  if ((load.connections ?? 16) !== CLI_LOAD.connections)
    problems.push(`${load.connections} connections (the CLI uses ${CLI_LOAD.connections})`);
  if ((load.path ?? "/work") !== CLI_LOAD.path) problems.push(`the path ${load.path}`);
  const query = load.query ?? {};
  const keys = Object.keys(query).sort();
  if (keys.join(",") !== "iters,spans" || keys.some((key) => !Number.isFinite(Number(query[key]))))
    problems.push("a query other than iters and spans");
  if ((spec.seed ?? 0) !== 0) problems.push(`seed ${spec.seed}`);
  const baseline = spec.configurations.find((c) => c.baseline) ?? spec.configurations[0];
  const candidate = spec.configurations.find((c) => c !== baseline) ?? baseline;
  const base = cliSpelling(baseline, presets);
  if (!base || Object.keys(base.overrides).length > 0)
    problems.push("the baseline's own variables (the CLI has no --baseline-env)");
  if (!cliSpelling(candidate, presets)) problems.push("the candidate's variables");
  return problems;
}

/** The `tracetax check` command of a check: with flags when they say it exactly. */
export function cliCommand(
  baseUrl: string,
  check: Pick<CheckStatus, "budget" | "strict">,
  spec: ExperimentSpec,
  presets: readonly Preset[],
): CliCommand {
  const api = `tracetax check --api ${shellQuote(baseUrl.replace(/\/+$/, ""))}`;
  const reasons = cliFlagProblems(spec, presets);
  if (reasons.length > 0) {
    const body = JSON.stringify(checkRequest(check, spec, presets), null, 2);
    return {
      flags: false,
      reasons,
      command: [
        "cat > tracetax-check.json <<'EOF'",
        body,
        "EOF",
        `${api} --spec tracetax-check.json --junit ${JUNIT_FILE}`,
      ].join("\n"),
    };
  }
  const baseline = spec.configurations.find((c) => c.baseline) ?? spec.configurations[0];
  const candidate = spec.configurations.find((c) => c !== baseline) ?? baseline;
  const base = cliSpelling(baseline, presets);
  const cand = cliSpelling(candidate, presets);
  const service = spec.service.kind === "demo" ? spec.service.language : "";
  const lines = [
    api,
    `  --service ${shellQuote(service)} --baseline ${shellQuote(base?.value ?? "")} --candidate ${shellQuote(cand?.value ?? "")}`,
  ];
  for (const [key, value] of Object.entries(cand?.overrides ?? {}))
    lines.push(`  --candidate-env ${shellQuote(`${key}=${value}`)}`);
  const query = spec.load.query ?? {};
  lines.push(
    `  --rate ${number(spec.load.rate)} --duration ${number(spec.load.duration_s ?? 20)} --rounds ${number(spec.rounds ?? 3)} --iters ${number(query.iters)} --spans ${number(query.spans)}`,
  );
  const budget = BUDGET_LINES.filter((line) => check.budget[line.key] != null).map(
    (line) => `${line.flag} ${number(check.budget[line.key])}`,
  );
  if (budget.length > 0) lines.push(`  ${budget.join(" ")}`);
  lines.push(`  ${check.strict ? "--strict " : ""}--junit ${JUNIT_FILE}`);
  return { flags: true, reasons: [], command: lines.join(" \\\n") };
}

/** The check's JUnit XML (one test case per budget line). */
export function junitUrl(checkId: string): string {
  return `/api/v1/checks/${encodeURIComponent(checkId)}?format=junit`;
}
