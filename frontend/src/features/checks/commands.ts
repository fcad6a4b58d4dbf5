// A check's budget lines as the backend publishes them (Budget's `x-budget-lines`: labels, form
// fields, the CLI's flags, units) and the text they read as; what `tracetax check` sends by itself
// (CheckRequest's and PipelineCheckRequest's `x-cli-load`); the rest of a check's request and its
// commands (curl, `tracetax check`) are the backend's (useCheckCommands, app/check_commands.py).

import { OPENAPI_DEFAULTS, OPENAPI_EXTENSIONS } from "../../api/openapiConstants";
import type { Budget, CheckStatus, PipelineSpec, VariantSpec } from "../../api/types";
import { formatUsd } from "../../components/results/costFigures";
import {
  formatBytes,
  formatCores,
  formatNumber,
  formatPercent,
  formatSignedInUnit,
} from "../../lib/format";

const { LoadSpec: API_LOAD, SpanLoadSpec: API_SPAN_LOAD } = OPENAPI_DEFAULTS;

/** What `tracetax check` sends when it is given no load flags (backend app/check_commands.py):
 * its own warm-up and no max-throughput phase; the connections and path it leaves to the API. */
export const CLI_LOAD = {
  ...OPENAPI_EXTENSIONS.CheckRequest["x-cli-load"],
  connections: API_LOAD.connections as number,
  path: API_LOAD.path as string,
};

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

/** "check: batch-default vs none" → the names the request gave its configurations. */
export function requestNames(experimentName: string | null | undefined): {
  baseline: string | null;
  candidate: string | null;
} {
  const match = /^check: (\S+) vs (\S+)$/.exec(experimentName ?? "");
  return { candidate: match?.[1] ?? null, baseline: match?.[2] ?? null };
}

/** What of a check its history needs: where it came from, and its gate against a branch. */
export type HistoryParts = Partial<Pick<CheckStatus, "provenance" | "against_history">>;

/** The gate's defaults (spec/provenance.py HistoryGate): `--against-history main` is main:10. */
export const HISTORY_GATE_DEFAULTS = OPENAPI_DEFAULTS.HistoryGate;

// Collector pipeline checks ---------------------------------------------------------------

/** What `tracetax check --collector` sends besides its flags (backend app/check_commands.py),
 * and the load the API then fills in (spec/collector.py SpanLoadSpec). */
export const CLI_PIPELINE_LOAD = {
  ...OPENAPI_EXTENSIONS.PipelineCheckRequest["x-cli-load"],
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

/** The check's JUnit XML (one test case per budget line). */
export function junitUrl(checkId: string): string {
  return `/api/v1/checks/${encodeURIComponent(checkId)}?format=junit`;
}

/** The check's GitHub-flavoured Markdown summary (for a PR comment or $GITHUB_STEP_SUMMARY). */
export function markdownUrl(checkId: string): string {
  return `/api/v1/checks/${encodeURIComponent(checkId)}?format=markdown`;
}
