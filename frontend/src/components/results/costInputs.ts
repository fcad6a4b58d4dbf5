// The cost route's inputs as the results page keeps them: in the URL's query string, under the
// API's own parameter names (`?requests_per_s=2500&retention_days=7`), so a shared link shows
// the same cost. A parameter left out is the API's default; the API validates every value.

import { OPENAPI_DEFAULTS } from "../../api/openapiConstants";
import type { CostInputs, CostQuery } from "../../api/types";

export type CostInputKey = keyof CostInputs;

export interface CostInputSpec {
  key: CostInputKey;
  label: string;
  unit: string;
}

/** The inputs in the order the form shows them, grouped. */
export const COST_INPUT_GROUPS: { title: string; inputs: CostInputSpec[] }[] = [
  {
    title: "Traffic and compute",
    inputs: [
      { key: "requests_per_s", label: "Request rate", unit: "req/s" },
      { key: "vcpu_hour_usd", label: "vCPU", unit: "$ per vCPU-hour" },
      { key: "egress_gb_usd", label: "Network egress", unit: "$ per GB" },
    ],
  },
  {
    title: "Ingest",
    inputs: [
      { key: "traces_ingest_gb_usd", label: "Trace store ingest", unit: "$ per GB" },
      { key: "logs_ingest_gb_usd", label: "Log store ingest", unit: "$ per GB" },
      { key: "metrics_ingest_gb_usd", label: "Metrics store ingest", unit: "$ per GB" },
    ],
  },
  {
    title: "Storage",
    inputs: [
      { key: "traces_storage_gb_month_usd", label: "Trace storage", unit: "$ per GB-month" },
      { key: "logs_storage_gb_month_usd", label: "Log storage", unit: "$ per GB-month" },
      { key: "metrics_storage_gb_month_usd", label: "Metrics storage", unit: "$ per GB-month" },
      { key: "retention_days", label: "Retention", unit: "days" },
    ],
  },
];

export const COST_INPUTS: CostInputSpec[] = COST_INPUT_GROUPS.flatMap((group) => group.inputs);

/**
 * The API's defaults (CostInputs in openapi.json, public list prices), for telling a stored
 * check's chosen inputs from the ones it left at their default.
 */
export const COST_DEFAULTS: CostInputs = OPENAPI_DEFAULTS.CostInputs;

/** Which pipeline experiment (and variant) gives the Collector's cores per span. */
export const PIPELINE_PARAMS = ["pipeline_experiment", "pipeline_variant"] as const;

export type CostParamKey = CostInputKey | (typeof PIPELINE_PARAMS)[number];

/** The cost parameters of a URL, as typed (strings); absent: the API's default. */
export type CostParams = Partial<Record<CostParamKey, string>>;

const PARAM_KEYS: CostParamKey[] = [...COST_INPUTS.map((input) => input.key), ...PIPELINE_PARAMS];

/** The cost parameters of a query string, in a fixed order; empty values are left out. */
export function costParamsFrom(search: URLSearchParams): CostParams {
  const params: CostParams = {};
  for (const key of PARAM_KEYS) {
    const value = search.get(key)?.trim();
    if (value) params[key] = value;
  }
  return params;
}

/**
 * The query string with `key` set to `value`, or removed when `value` is empty (back to the
 * default); another experiment's pipeline drops the variant chosen from the previous one.
 */
export function withCostParam(
  search: URLSearchParams,
  key: CostParamKey,
  value: string | null,
): URLSearchParams {
  const next = new URLSearchParams(search);
  const text = value?.trim() ?? "";
  if (text) next.set(key, text);
  else next.delete(key);
  if (key === "pipeline_experiment" && search.get(key) !== next.get(key)) {
    next.delete("pipeline_variant");
  }
  return next;
}

/** The query string with every cost parameter removed: the API's defaults. */
export function withoutCostParams(search: URLSearchParams): URLSearchParams {
  const next = new URLSearchParams(search);
  for (const key of PARAM_KEYS) next.delete(key);
  return next;
}

/**
 * What GET …/cost is sent. A value that is not a number goes as typed, so the API's 422 names
 * the parameter rather than the page guessing what was meant.
 */
export function costQuery(params: CostParams): CostQuery {
  const query: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    const number = Number(value);
    const numeric = !(PIPELINE_PARAMS as readonly string[]).includes(key) && value !== "";
    query[key] = numeric && Number.isFinite(number) ? number : value;
  }
  return query as CostQuery;
}
