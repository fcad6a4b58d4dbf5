// The new-check form of a Collector pipeline as plain data, and how it becomes the API's
// PipelineCheckRequest. Like `tracetax check --collector`, it sends a variant on each side (a
// shipped one, or an overlay file by its path on the backend's host), the span rate, the
// measured seconds and the rounds, warm-up 2 s, and the pipeline budget; the API defaults the
// rest (drain, trace shape) and validates what was typed (422s go beside the fields).

import type {
  Budget,
  PipelineCheckBody,
  PipelineVariantInfo,
  VariantRequest,
} from "../../api/types";
import { numberOrText } from "../../components/spec-form/loadForm";
import { nameFromPath, PASSTHROUGH } from "../../components/spec-form/pipelineForm";
import {
  againstHistoryRequest,
  type HistoryDraft,
  NO_HISTORY,
  provenanceRequest,
} from "./checkForm";
import { CLI_PIPELINE_LOAD, PIPELINE_BUDGET_LINES, type PipelineBudgetKey } from "./commands";

/** The select's value for "a config file of your own" (no shipped variant is named so). */
export const CONFIG_FILE = "(config file)";

/** One side of the check: a shipped variant, or an overlay file with a name. */
export interface VariantPickDraft {
  /** A shipped variant's name, or CONFIG_FILE. */
  pipeline: string;
  /** The overlay's path on the backend's host (with CONFIG_FILE). */
  configFile: string;
  /** The overlay variant's name; blank: from the file's name. */
  name: string;
}

export type PipelineBudgetDraft = Record<PipelineBudgetKey, string>;

export interface PipelineCheckFormState extends PipelineBudgetDraft, HistoryDraft {
  baseline: VariantPickDraft;
  candidate: VariantPickDraft;
  spans_per_s: string;
  duration_s: string;
  rounds: string;
  strict: boolean;
}

/** `tracetax check --collector`'s defaults (`--help`) and the documented example budget. */
export function initialPipelineCheckForm(
  catalog: readonly PipelineVariantInfo[],
): PipelineCheckFormState {
  const names = catalog.map((info) => info.name);
  const pick = (name: string, fallback: string | undefined): VariantPickDraft => ({
    pipeline: names.includes(name) ? name : (fallback ?? CONFIG_FILE),
    configFile: "",
    name: "",
  });
  return {
    baseline: pick(PASSTHROUGH, names[0]),
    candidate: pick("batch-default", names[1] ?? names[0]),
    spans_per_s: "5000",
    duration_s: "10",
    rounds: "5",
    cores_per_10k_overhead_pct: "30",
    cores_per_10k_added: "",
    rss_overhead_pct: "",
    rss_added_mib: "",
    max_lost_spans: "0",
    strict: false,
    ...NO_HISTORY,
  };
}

/** The name a config file's variant goes by: as typed, else from the file's name. */
export function fileVariantName(draft: VariantPickDraft): string {
  return draft.name.trim() || nameFromPath(draft.configFile);
}

/** A side of the check as the API takes it: a shipped variant by itself (named after it). */
export function variantPick(draft: VariantPickDraft): VariantRequest {
  if (draft.pipeline !== CONFIG_FILE) return { pipeline: draft.pipeline };
  return { name: fileVariantName(draft), config_file: draft.configFile.trim() };
}

export function toPipelineCheckRequest(form: PipelineCheckFormState): PipelineCheckBody {
  const budget: Budget = {};
  for (const { key } of PIPELINE_BUDGET_LINES) {
    const value = numberOrText(form[key]);
    if (value !== undefined) (budget as Record<string, unknown>)[key] = value;
  }
  // As the CLI sends it; what was typed, a number or not, for the API to judge.
  const load: Record<string, unknown> = {};
  const rate = numberOrText(form.spans_per_s);
  const duration = numberOrText(form.duration_s);
  if (rate !== undefined) load.spans_per_s = rate;
  load.warmup_s = CLI_PIPELINE_LOAD.warmup_s;
  if (duration !== undefined) load.duration_s = duration;
  const request: PipelineCheckBody = {
    subject: "collector",
    baseline: variantPick(form.baseline),
    candidate: variantPick(form.candidate),
    load: load as PipelineCheckBody["load"],
    budget,
    strict: form.strict,
  };
  const rounds = numberOrText(form.rounds);
  if (rounds !== undefined) request.rounds = rounds as number;
  const provenance = provenanceRequest(form);
  if (provenance) request.provenance = provenance;
  const againstHistory = againstHistoryRequest(form);
  if (againstHistory)
    request.against_history = againstHistory as PipelineCheckBody["against_history"];
  return request;
}
