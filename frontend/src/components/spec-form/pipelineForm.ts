// The new pipeline experiment form as plain data, and how it becomes the API's PipelineSpec.
// Inputs keep their text; the API validates (its 422 is shown beside each field), so the form
// sends what was typed and leaves blank optional fields to the API's defaults
// (tracetax.spec.collector: SpanLoadSpec, PipelineSpec).

import { OPENAPI_DEFAULTS, OPENAPI_EXTENSIONS } from "../../api/openapiConstants";
import type { PipelineSpecRequest, PipelineVariantInfo, VariantRequest } from "../../api/types";
import { type EnvRow, NAME_PATTERN, uid, uniqueName } from "./form";
import { numberOrText } from "./loadForm";

export interface VariantDraft {
  uid: string;
  /** A shipped variant's name; null for a user's own config file. */
  pipeline: string | null;
  /** A config file's path on the backend's host (for a variant of one's own). */
  configFile: string;
  /** The configuration's name: the shipped variant's, or one given to a config file. */
  name: string;
  /** LAB_* variables the overlay reads. */
  settings: EnvRow[];
}

export interface PipelineLoadDraft {
  spans_per_s: string;
  warmup_s: string;
  duration_s: string;
  drain_s: string;
  spans_per_trace: string;
  attribute_bytes: string;
}

/** The optional ramp after the measured phase (`load.ramp`); off by default. */
export interface RampDraft {
  enabled: boolean;
  factor: string;
  step_s: string;
  max_spans_per_s: string;
  max_steps: string;
}

export interface PipelineFormState {
  name: string;
  /** Shipped variants in the catalog's order, then config files in the order added. */
  variants: VariantDraft[];
  /** uid of the one baseline variant. */
  baseline: string;
  load: PipelineLoadDraft;
  ramp: RampDraft;
  rounds: string;
  seed: string;
}

const { SpanLoadSpec: SPAN_LOAD, PipelineSpec: PIPELINE } = OPENAPI_DEFAULTS;

/** The backend's defaults (from openapi.json), used when a field is left blank. */
export const PIPELINE_DEFAULTS = {
  warmup_s: SPAN_LOAD.warmup_s,
  duration_s: SPAN_LOAD.duration_s,
  drain_s: SPAN_LOAD.drain_s,
  spans_per_trace: SPAN_LOAD.spans_per_trace,
  attribute_bytes: SPAN_LOAD.attribute_bytes,
  rounds: PIPELINE.rounds,
  seed: PIPELINE.seed,
} as const;

/** The ramp's defaults (RampSpec in openapi.json); it starts at the measured phase's rate. */
export const RAMP_DEFAULTS = OPENAPI_DEFAULTS.RampSpec;

/** The natural baseline: no processor at all. */
export const PASSTHROUGH = "passthrough";
/** Chosen beside the baseline to start with. */
const DEFAULT_VARIANTS = [PASSTHROUGH, "batch-default"];
export const MAX_VARIANTS = 12;

export function shippedVariant(pipeline: string): VariantDraft {
  return { uid: uid("variant"), pipeline, configFile: "", name: pipeline, settings: [] };
}

/** A name for a config file's variant: its file name, as a configuration name may be. */
export function nameFromPath(path: string): string {
  const file = path.trim().split(/[\\/]/).pop() ?? "";
  const stem = file
    .replace(/\.(ya?ml)$/i, "")
    .toLowerCase()
    .replace(/[^a-z0-9._%-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return NAME_PATTERN.test(stem) ? stem : "custom";
}

export function fileVariant(path: string, taken: readonly string[]): VariantDraft {
  return {
    uid: uid("variant"),
    pipeline: null,
    configFile: path.trim(),
    name: uniqueName(nameFromPath(path), taken),
    settings: [],
  };
}

/** Shipped variants in the catalog's order, then the config files as they were added. */
export function sortVariants(
  variants: readonly VariantDraft[],
  catalog: readonly PipelineVariantInfo[],
): VariantDraft[] {
  const rank = (v: VariantDraft) => {
    if (v.pipeline == null) return catalog.length;
    const index = catalog.findIndex((info) => info.name === v.pipeline);
    return index < 0 ? catalog.length : index;
  };
  return variants
    .map((variant, index) => ({ variant, index }))
    .sort((a, b) => rank(a.variant) - rank(b.variant) || a.index - b.index)
    .map(({ variant }) => variant);
}

export function initialPipelineForm(catalog: readonly PipelineVariantInfo[]): PipelineFormState {
  const names = catalog.map((info) => info.name);
  const chosen = DEFAULT_VARIANTS.filter((name) => names.includes(name));
  const variants = (chosen.length > 0 ? chosen : names.slice(0, 1)).map(shippedVariant);
  return {
    name: "",
    variants,
    baseline: variants.find((v) => v.pipeline === PASSTHROUGH)?.uid ?? variants[0]?.uid ?? "",
    load: {
      spans_per_s: "1000",
      warmup_s: String(PIPELINE_DEFAULTS.warmup_s),
      duration_s: String(PIPELINE_DEFAULTS.duration_s),
      drain_s: String(PIPELINE_DEFAULTS.drain_s),
      spans_per_trace: String(PIPELINE_DEFAULTS.spans_per_trace),
      attribute_bytes: String(PIPELINE_DEFAULTS.attribute_bytes),
    },
    ramp: {
      enabled: false,
      factor: String(RAMP_DEFAULTS.factor),
      step_s: String(RAMP_DEFAULTS.step_s),
      max_spans_per_s: String(RAMP_DEFAULTS.max_spans_per_s),
      max_steps: String(RAMP_DEFAULTS.max_steps),
    },
    rounds: String(PIPELINE_DEFAULTS.rounds),
    seed: String(PIPELINE_DEFAULTS.seed),
  };
}

/** The chosen variants and which of them is the baseline. */
export type VariantChoice = Pick<PipelineFormState, "variants" | "baseline">;

/** `variants` in order as the choice; a baseline no longer chosen moves to passthrough or the first. */
export function withVariants<T extends VariantChoice>(
  form: T,
  variants: VariantDraft[],
  catalog: readonly PipelineVariantInfo[],
): T {
  const sorted = sortVariants(variants, catalog);
  const baseline = sorted.some((v) => v.uid === form.baseline)
    ? form.baseline
    : (sorted.find((v) => v.pipeline === PASSTHROUGH)?.uid ?? sorted[0]?.uid ?? "");
  return { ...form, variants: sorted, baseline };
}

/** Checks or unchecks a shipped variant. */
export function toggleShipped<T extends VariantChoice>(
  form: T,
  pipeline: string,
  catalog: readonly PipelineVariantInfo[],
): T {
  const chosen = form.variants.some((v) => v.pipeline === pipeline);
  return withVariants(
    form,
    chosen
      ? form.variants.filter((v) => v.pipeline !== pipeline)
      : [...form.variants, shippedVariant(pipeline)],
    catalog,
  );
}

/** The LAB_* settings an overlay reads with a default (`${env:LAB_X:-default}`), in order. */
export function labSettings(config: string): { name: string; default: string }[] {
  const found = new Map<string, string>();
  for (const match of config.matchAll(/\$\{env:(LAB_[A-Z0-9_]+):-([^}]*)\}/g)) {
    if (!found.has(match[1])) found.set(match[1], match[2]);
  }
  return [...found].map(([name, value]) => ({ name, default: value }));
}

function put(target: Record<string, unknown>, key: string, text: string): void {
  const value = numberOrText(text);
  if (value !== undefined) target[key] = value;
}

/** A variant as the API takes it: a shipped one by its pipeline (named after it), a file named. */
export function variantOf(draft: VariantDraft, baseline: boolean): VariantRequest {
  const settings: Record<string, string> = {};
  for (const row of draft.settings) {
    if (row.key.trim() === "" && row.value === "") continue;
    settings[row.key.trim()] = row.value;
  }
  return {
    ...(draft.pipeline != null
      ? { pipeline: draft.pipeline }
      : { name: draft.name.trim(), config_file: draft.configFile.trim() }),
    baseline,
    settings,
  };
}

/** The spec to POST: a config file's variant named (its name is required), one baseline. */
export function toPipelineSpec(form: PipelineFormState): PipelineSpecRequest {
  const load: Record<string, unknown> = {};
  for (const key of Object.keys(form.load) as (keyof PipelineLoadDraft)[])
    put(load, key, form.load[key]);
  if (form.ramp.enabled) {
    const ramp: Record<string, unknown> = {};
    for (const key of ["factor", "step_s", "max_spans_per_s", "max_steps"] as const)
      put(ramp, key, form.ramp[key]);
    load.ramp = ramp;
  }
  const spec: PipelineSpecRequest = {
    subject: "collector",
    configurations: form.variants.map((draft) => variantOf(draft, draft.uid === form.baseline)),
    load: load as PipelineSpecRequest["load"],
    rounds: (numberOrText(form.rounds) ?? PIPELINE_DEFAULTS.rounds) as number,
    seed: (numberOrText(form.seed) ?? PIPELINE_DEFAULTS.seed) as number,
  };
  if (form.name.trim() !== "") spec.name = form.name.trim();
  return spec;
}

// What each ramp step adds besides its step_s (starting telemetrygen, settling), as the backend
// publishes it (PipelineSpec's `x-estimate`): the ramp's description says it. The estimate itself,
// with the rates the ramp may try, is the backend's (useEstimate).
export const RAMP_STEP_OVERHEAD_S =
  OPENAPI_EXTENSIONS.PipelineSpec["x-estimate"].ramp_step_overhead_s;
