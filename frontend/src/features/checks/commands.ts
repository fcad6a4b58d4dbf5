// A check's request rebuilt from what the backend stored (its experiment's spec, its budget and
// strictness), and the curl and `tracetax check` commands that run the same check from a CI
// pipeline. The CLI's flags cannot say everything a request can (a baseline's own variables, a
// warm-up other than 2 s, …): then the CLI command takes the request from a file (--spec).
// A check measures a service's configurations, or a Collector pipeline's variants
// (`subject: "collector"`, `tracetax check --collector`), each with budget lines of its own.

import { OPENAPI_DEFAULTS, OPENAPI_EXTENSIONS } from "../../api/openapiConstants";
import type {
  Budget,
  CheckBody,
  CheckRequest,
  CheckStatus,
  ConfigurationSpec,
  ExperimentSpec,
  PipelineCheckBody,
  PipelineSpec,
  Preset,
  VariantRequest,
  VariantSpec,
} from "../../api/types";
import { formatUsd } from "../../components/results/costFigures";
import { COST_DEFAULTS, type CostInputKey } from "../../components/results/costInputs";
import { nameFromPath } from "../../components/spec-form/pipelineForm";
import {
  formatBytes,
  formatCores,
  formatNumber,
  formatPercent,
  formatSignedInUnit,
} from "../../lib/format";

type ConfigurationRequest = CheckRequest["baseline"];

const { LoadSpec: API_LOAD, SpanLoadSpec: API_SPAN_LOAD } = OPENAPI_DEFAULTS;

/** What `tracetax check` sends when it is given no load flags (backend/tracetax/cli/check.py):
 * its own warm-up and no max-throughput phase; the connections and path it leaves to the API. */
export const CLI_LOAD = {
  warmup_s: 2,
  max_throughput_s: 0,
  connections: API_LOAD.connections as number,
  path: API_LOAD.path as string,
};
export const JUNIT_FILE = "tracetax-junit.xml";

/** A budget line as the forms and commands show it; its key is a field of the API's Budget. */
interface BudgetLineSpec {
  key: keyof Budget;
  label: string;
  field: string;
  flag: string;
  unit: string;
}

const PUBLISHED_LINES = OPENAPI_EXTENSIONS.Budget["x-budget-lines"];

/**
 * Every budget line of a service check, in the backend's order, as the backend publishes them
 * (diagnostics/checks.py BUDGET_LINE_TEXT, the flags `tracetax check` takes): relative ones in %
 * of the baseline, absolute ones in ms or µs, the SDK's dropped spans, bytes and cost.
 */
export const BUDGET_LINES = PUBLISHED_LINES.service satisfies readonly BudgetLineSpec[];

/** The cost model's request rate for max_usd_per_month (budget.cost.requests_per_s). */
export const COST_RATE_FLAG = "--cost-rate";

/**
 * A Collector pipeline check's budget lines, in the backend's order, as it publishes them: the
 * lab Collector's cores per 10k spans/s and peak RSS, relative or absolute, and the spans the
 * candidate lost (docs/ci-checks.md).
 */
export const PIPELINE_BUDGET_LINES = PUBLISHED_LINES.collector satisfies readonly BudgetLineSpec[];

const ALL_BUDGET_LINES = [...BUDGET_LINES, ...PIPELINE_BUDGET_LINES];

/** A service check's budget fields. */
export type BudgetKey = (typeof BUDGET_LINES)[number]["key"];
/** A pipeline check's budget fields (any other is a 422 on `budget`). */
export type PipelineBudgetKey = (typeof PIPELINE_BUDGET_LINES)[number]["key"];
export type BudgetUnit = (typeof ALL_BUDGET_LINES)[number]["unit"];

/** The line a check adds when a measured phase was flagged for interference. */
export const ISOLATION_LINE = "isolation";
/** The lines counted exactly (no interval): spans dropped in the SDK, spans lost in a pipeline. */
export const COUNT_LINES: readonly string[] = ["max_dropped_spans", "max_lost_spans"];

/** A line's name for people; `pipeline`: the check measured a Collector pipeline. */
export function budgetLabel(name: string, pipeline = false): string {
  if (name === ISOLATION_LINE)
    return pipeline ? "Isolation of the lab Collector's cores" : "Isolation of the service's cores";
  return ALL_BUDGET_LINES.find((line) => line.key === name)?.label ?? name;
}

export function budgetUnit(name: string): BudgetUnit | null {
  return ALL_BUDGET_LINES.find((line) => line.key === name)?.unit ?? null;
}

/** A budget line's limit as text: "≤ 15 %", "≤ 0.5 ms", "≤ 20 µs", "≤ 0 spans", "≤ 64 MiB". */
export function budgetLimit(name: string, value: number): string {
  if (name === ISOLATION_LINE) return "no flagged round";
  const unit = budgetUnit(name);
  if (unit === "spans") return `≤ ${formatNumber(value, 0)} spans`;
  if (unit === "ms") return `≤ ${formatNumber(value, 3)} ms`;
  if (unit === "us") return `≤ ${formatNumber(value, 2)} µs`;
  if (unit === "mib") return `≤ ${formatNumber(value, 2)} MiB`;
  if (unit === "cores") return `≤ ${formatCores(value)}`;
  if (unit === "bytes") return `≤ ${formatNumber(value, 0)} B`;
  if (unit === "usd") return `≤ ${formatUsd(value)}`;
  return `≤ ${formatPercent(value).replace(/^\+/, "")}`;
}

/**
 * A measured change in its budget line's unit, positive worse: "+4.1 %", "+300 µs",
 * "+2.50 MiB", "+1.20 millicores"; a count line's value is a count of spans, a cost line's
 * the candidate's own bytes per request or $/month.
 */
export function budgetMeasure(name: string, value: number): string {
  const unit = budgetUnit(name);
  if (unit === "spans") return `${formatNumber(value, 0)} spans`;
  if (unit === "ms") return formatSignedInUnit(value * 1000, "us");
  if (unit === "us") return formatSignedInUnit(value, "us");
  if (unit === "mib") {
    const bytes = formatBytes(Math.abs(value) * 2 ** 20);
    return value === 0 ? bytes : `${value > 0 ? "+" : "\u2212"}${bytes}`;
  }
  if (unit === "cores") return formatSignedInUnit(value, "cores");
  if (unit === "bytes") return `${formatNumber(value, 0)} B`;
  if (unit === "usd") return formatUsd(value);
  return formatPercent(value);
}

/** Every line the budget sets, as "p99 latency overhead ≤ 15 %" (a service's or a pipeline's). */
export function budgetSummary(budget: Budget): string[] {
  return ALL_BUDGET_LINES.filter((line) => budget[line.key] != null).map(
    (line) => `${line.label} ${budgetLimit(line.key, budget[line.key] as number)}`,
  );
}

/** Whether the budget sets any line at all. */
export function budgetSetsNone(budget: Budget): boolean {
  return ALL_BUDGET_LINES.every((line) => budget[line.key] == null);
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

/**
 * The wall time a check may buy rounds up to: its request's `max_wall_time_s`, stored in the
 * experiment's spec as a precision without a half-width (api/schemas/checks.py `_precision`).
 */
export function checkMaxWallTime(spec: Pick<ExperimentSpec, "precision">): number | null {
  const precision = spec.precision;
  if (!precision || precision.half_width_pct != null) return null;
  return precision.max_wall_time_s ?? null;
}

/** What of a check its history needs: where it came from, and its gate against a branch. */
export type HistoryParts = Partial<Pick<CheckStatus, "provenance" | "against_history">>;

/** The gate's defaults (spec/provenance.py HistoryGate): `--against-history main` is main:10. */
export const HISTORY_GATE_DEFAULTS = OPENAPI_DEFAULTS.HistoryGate;

/** A request's `provenance` and `against_history`, as the check had them (none: left out). */
export function historyRequest(check: HistoryParts): HistoryParts {
  return {
    ...(check.provenance
      ? {
          provenance: Object.fromEntries(
            Object.entries(check.provenance).filter(([, value]) => value != null),
          ),
        }
      : {}),
    ...(check.against_history ? { against_history: check.against_history } : {}),
  };
}

/** The request that runs this check again, from its experiment's stored spec. */
export function checkRequest(
  check: Pick<CheckStatus, "budget" | "strict"> & HistoryParts,
  spec: ExperimentSpec,
  presets: readonly Preset[],
): CheckRequest {
  const baseline = spec.configurations.find((c) => c.baseline) ?? spec.configurations[0];
  const candidate = spec.configurations.find((c) => c !== baseline) ?? baseline;
  const names = requestNames(spec.name);
  const request: CheckRequest = {
    subject: "service",
    service: spec.service,
    baseline: configurationRequest(baseline, names.baseline, presets),
    candidate: configurationRequest(candidate, names.candidate, presets),
    load: spec.load,
    budget: withoutNulls(check.budget),
    rounds: spec.rounds ?? 3,
    seed: spec.seed ?? 0,
    strict: check.strict,
    sample_stacks: spec.sample_stacks ?? false,
  };
  if (!request.seed) delete (request as Partial<CheckRequest>).seed;
  if (!request.sample_stacks) delete (request as Partial<CheckRequest>).sample_stacks;
  const maxWallTime = checkMaxWallTime(spec);
  if (maxWallTime != null) request.max_wall_time_s = maxWallTime;
  return { ...request, ...historyRequest(check) };
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
export function curlCommands(baseUrl: string, request: CheckBody): string {
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

/** Why the CLI's flags cannot say this budget: a cost input other than the request rate
 * that is not the API's default (a stored budget carries every input). */
export function cliBudgetProblems(budget: Budget): string[] {
  const chosen = Object.entries(budget.cost ?? {}).filter(
    ([key, value]) =>
      key !== "requests_per_s" && value != null && value !== COST_DEFAULTS[key as CostInputKey],
  );
  return chosen.length > 0 ? [`cost inputs other than the request rate (${COST_RATE_FLAG})`] : [];
}

/** The `tracetax check` command of a check: with flags when they say it exactly. */
export function cliCommand(
  baseUrl: string,
  check: Pick<CheckStatus, "budget" | "strict"> & HistoryParts,
  spec: ExperimentSpec,
  presets: readonly Preset[],
): CliCommand {
  const api = `tracetax check --api ${shellQuote(baseUrl.replace(/\/+$/, ""))}`;
  const reasons = [...cliFlagProblems(spec, presets), ...cliBudgetProblems(check.budget)];
  if (reasons.length > 0)
    return {
      flags: false,
      reasons,
      command: specFileCommand(baseUrl, checkRequest(check, spec, presets)),
    };
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
  const rate = check.budget.cost?.requests_per_s;
  if (rate != null && rate !== COST_DEFAULTS.requests_per_s)
    budget.push(`${COST_RATE_FLAG} ${number(rate)}`);
  if (budget.length > 0) lines.push(`  ${budget.join(" ")}`);
  const maxWallTime = checkMaxWallTime(spec);
  const wallTime = maxWallTime != null ? `--max-wall-time ${number(maxWallTime)} ` : "";
  const history = historyFlags(check);
  if (history) lines.push(`  ${history}`);
  const stacks = spec.sample_stacks ? "--sample-stacks " : "";
  lines.push(`  ${check.strict ? "--strict " : ""}${stacks}${wallTime}--junit ${JUNIT_FILE}`);
  return { flags: true, reasons: [], command: lines.join(" \\\n") };
}

/** What a check carries for its history, as the CLI's flags: `--branch main --commit abc123
 * --against-history main:10 --history-max-growth-pct 5`; null when it carries none. (In CI the CLI reads
 * the branch and commit from the environment; the flags override it.) */
export function historyFlags(check: HistoryParts): string | null {
  const flags: string[] = [];
  if (check.provenance?.branch) flags.push(`--branch ${shellQuote(check.provenance.branch)}`);
  if (check.provenance?.commit) flags.push(`--commit ${shellQuote(check.provenance.commit)}`);
  const gate = check.against_history;
  if (gate) {
    const points = gate.points ?? HISTORY_GATE_DEFAULTS.points;
    flags.push(`--against-history ${shellQuote(`${gate.branch}:${points}`)}`);
    if (gate.max_growth_pct != null && gate.max_growth_pct !== HISTORY_GATE_DEFAULTS.max_growth_pct)
      flags.push(`--history-max-growth-pct ${number(gate.max_growth_pct)}`);
  }
  return flags.length > 0 ? flags.join(" ") : null;
}

// Collector pipeline checks ---------------------------------------------------------------

/** What `tracetax check --collector` sends besides its flags (cli/check.py `pipeline_request`),
 * and the load the API then fills in (spec/collector.py SpanLoadSpec). */
export const CLI_PIPELINE_LOAD = {
  warmup_s: 2,
  drain_s: API_SPAN_LOAD.drain_s as number,
  spans_per_trace: API_SPAN_LOAD.spans_per_trace as number,
  attribute_bytes: API_SPAN_LOAD.attribute_bytes as number,
  services_per_trace: API_SPAN_LOAD.services_per_trace as number,
};

/** The stored variants of a pipeline check's experiment: the baseline, then the candidate. */
export function checkVariants(spec: Pick<PipelineSpec, "configurations">): {
  baseline: VariantSpec;
  candidate: VariantSpec;
} {
  const baseline = spec.configurations.find((c) => c.baseline) ?? spec.configurations[0];
  const candidate = spec.configurations.find((c) => c !== baseline) ?? baseline;
  return { baseline, candidate };
}

/**
 * A stored variant (named "baseline" or "candidate" by the check) as the request that makes it
 * again: a shipped pipeline by itself (its name is the default), a config file with its name.
 */
export function variantRequest(stored: VariantSpec, name: string | null): VariantRequest {
  const request: VariantRequest = stored.config_file
    ? { name: name ?? nameFromPath(stored.config_file), config_file: stored.config_file }
    : { pipeline: stored.pipeline };
  if (!stored.config_file && name && name !== stored.pipeline) request.name = name;
  if (stored.settings && Object.keys(stored.settings).length > 0)
    request.settings = stored.settings;
  return request;
}

/** The request that runs this pipeline check again, from its experiment's stored spec. */
export function pipelineCheckRequest(
  check: Pick<CheckStatus, "budget" | "strict"> & HistoryParts,
  spec: PipelineSpec,
): PipelineCheckBody {
  const { baseline, candidate } = checkVariants(spec);
  const names = requestNames(spec.name);
  const load = Object.fromEntries(
    Object.entries(spec.load).filter(([, value]) => value != null),
  ) as PipelineCheckBody["load"];
  const request: PipelineCheckBody = {
    subject: "collector",
    baseline: variantRequest(baseline, names.baseline),
    candidate: variantRequest(candidate, names.candidate),
    load,
    budget: withoutNulls(check.budget),
    rounds: spec.rounds ?? 5,
    strict: check.strict,
  };
  if (spec.seed) request.seed = spec.seed;
  return { ...request, ...historyRequest(check) };
}

/** The name `tracetax check --collector` gives an overlay file (cli_check.variant_of). */
export function cliVariantName(path: string): string {
  const file = path.split("/").pop() ?? "";
  const at = file.lastIndexOf(".");
  return (at > 0 ? file.slice(0, at) : file).slice(0, 40).toLowerCase();
}

/** What --baseline / --candidate VALUE says for a variant; null when no value says it. */
function cliVariant(variant: VariantRequest): string | null {
  if (variant.config_file) {
    if (!/\.ya?ml$/.test(variant.config_file)) return null;
    if ((variant.name ?? "") !== cliVariantName(variant.config_file)) return null;
    return variant.config_file;
  }
  if (!variant.pipeline || /\.ya?ml$/.test(variant.pipeline)) return null;
  if (variant.name && variant.name !== variant.pipeline) return null;
  return variant.pipeline;
}

/** Why `tracetax check --collector` flags cannot say this request (empty: they can). */
export function pipelineCliProblems(request: PipelineCheckBody): string[] {
  const problems: string[] = [];
  const load = request.load as Record<string, unknown>;
  const said = new Set(["spans_per_s", "duration_s"]);
  for (const [key, value] of Object.entries(load)) {
    if (said.has(key) || value == null) continue;
    const fixed = (CLI_PIPELINE_LOAD as Record<string, number>)[key];
    if (fixed === value) continue;
    if (key === "ramp") problems.push("a ramp (the CLI runs none)");
    else if (key === "workers") problems.push(`${value} telemetrygen workers`);
    else if (key === "warmup_s")
      problems.push(`a warm-up of ${value} s (the CLI uses ${CLI_PIPELINE_LOAD.warmup_s} s)`);
    else if (key === "drain_s")
      problems.push(`a drain of ${value} s (the CLI leaves ${CLI_PIPELINE_LOAD.drain_s} s)`);
    else problems.push(`${key.replace(/_/g, " ")} ${value}`);
  }
  if (request.seed) problems.push(`seed ${request.seed}`);
  for (const role of ["baseline", "candidate"] as const) {
    const variant = request[role];
    if (variant.settings && Object.keys(variant.settings).length > 0)
      problems.push(`the ${role}'s LAB_* settings`);
    if (cliVariant(variant) == null)
      problems.push(
        variant.config_file
          ? `the ${role}'s config file as named (the CLI names a *.yaml file after it)`
          : `the ${role}'s name of its own`,
      );
  }
  return problems;
}

/** The file fallback: the request written out, then `tracetax check --spec`. */
function specFileCommand(baseUrl: string, request: CheckBody): string {
  return [
    "cat > tracetax-check.json <<'EOF'",
    JSON.stringify(request, null, 2),
    "EOF",
    `tracetax check --api ${shellQuote(baseUrl.replace(/\/+$/, ""))} --spec tracetax-check.json --junit ${JUNIT_FILE}`,
  ].join("\n");
}

/** The `tracetax check --collector` command of a pipeline check's request. */
export function pipelineCliCommand(baseUrl: string, request: PipelineCheckBody): CliCommand {
  const reasons = pipelineCliProblems(request);
  if (reasons.length > 0)
    return { flags: false, reasons, command: specFileCommand(baseUrl, request) };
  const lines = [
    `tracetax check --api ${shellQuote(baseUrl.replace(/\/+$/, ""))}`,
    `  --collector --baseline ${shellQuote(cliVariant(request.baseline) ?? "")} --candidate ${shellQuote(cliVariant(request.candidate) ?? "")}`,
    `  --spans-per-s ${number(request.load.spans_per_s)} --duration ${number(request.load.duration_s ?? 20)} --rounds ${number(request.rounds ?? 5)}`,
  ];
  const budget = PIPELINE_BUDGET_LINES.filter((line) => request.budget[line.key] != null).map(
    (line) => `${line.flag} ${number(request.budget[line.key])}`,
  );
  if (budget.length > 0) lines.push(`  ${budget.join(" ")}`);
  const history = historyFlags(request);
  if (history) lines.push(`  ${history}`);
  lines.push(`  ${request.strict ? "--strict " : ""}--junit ${JUNIT_FILE}`);
  return { flags: true, reasons: [], command: lines.join(" \\\n") };
}

/** The check's JUnit XML (one test case per budget line). */
export function junitUrl(checkId: string): string {
  return `/api/v1/checks/${encodeURIComponent(checkId)}?format=junit`;
}

/** The check's GitHub-flavoured Markdown summary (for a PR comment or $GITHUB_STEP_SUMMARY). */
export function markdownUrl(checkId: string): string {
  return `/api/v1/checks/${encodeURIComponent(checkId)}?format=markdown`;
}
