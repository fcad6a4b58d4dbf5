// The new-experiment form as plain data, and how it becomes the API's ExperimentSpec.
// Inputs keep their text; the API validates (and its 422 is shown beside each field), so the
// form sends what the user typed and leaves blank optional fields to the API's defaults.

import type { ExperimentSpec, Preset, Processor, ServiceInfo } from "../../api/types";

export interface EnvRow {
  uid: string;
  key: string;
  value: string;
}

export interface ConfigurationDraft {
  uid: string;
  name: string;
  /** The preset it started from; sent only while none of the preset's variables was removed. */
  preset: string | null;
  processor: Processor;
  env: EnvRow[];
}

export interface LoadDraft {
  rate: string;
  warmup_s: string;
  duration_s: string;
  connections: string;
  max_throughput_s: string;
  path: string;
  iters: string;
  spans: string;
}

export interface FormState {
  name: string;
  language: string;
  configurations: ConfigurationDraft[];
  /** uid of the one baseline configuration. */
  baseline: string;
  load: LoadDraft;
  rounds: string;
  seed: string;
  sampleStacks: boolean;
}

/** The backend's defaults (tracetax.engine.spec), used when a field is left blank. */
export const SPEC_DEFAULTS = {
  warmup_s: 5,
  duration_s: 20,
  connections: 16,
  max_throughput_s: 10,
  stacks_s: 5,
  rounds: 5,
  seed: 0,
  sample_stacks: true,
} as const;

export const PROCESSORS: readonly Processor[] = ["none", "simple", "batch", "agent", "ebpf"];
export const NAME_PATTERN = /^[a-z0-9][a-z0-9._%-]{0,39}$/;

let counter = 0;
export function uid(prefix = "row"): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

export function envRows(env: Record<string, string> | undefined): EnvRow[] {
  return Object.entries(env ?? {}).map(([key, value]) => ({ uid: uid("env"), key, value }));
}

/** `base`, or `base-2`, `base-3`… whichever is not taken yet. */
export function uniqueName(base: string, taken: readonly string[]): string {
  if (!taken.includes(base)) return base;
  for (let n = 2; ; n += 1) {
    const candidate = `${base}-${n}`;
    if (!taken.includes(candidate)) return candidate;
  }
}

export function configurationFromPreset(
  preset: Preset,
  taken: readonly string[],
): ConfigurationDraft {
  return {
    uid: uid("cfg"),
    name: uniqueName(preset.name, taken),
    preset: preset.name,
    processor: (PROCESSORS as readonly string[]).includes(preset.processor)
      ? (preset.processor as Processor)
      : "batch",
    env: envRows(preset.env),
  };
}

export function customConfiguration(taken: readonly string[]): ConfigurationDraft {
  return {
    uid: uid("cfg"),
    name: uniqueName("custom", taken),
    preset: null,
    processor: "batch",
    env: [],
  };
}

/** Presets that apply to `language` (a preset may name the languages it is for). */
export function presetsFor(presets: readonly Preset[], language: string): Preset[] {
  return presets.filter((preset) => !preset.languages || preset.languages.includes(language));
}

export function initialForm(
  services: readonly ServiceInfo[],
  presets: readonly Preset[],
): FormState {
  const language =
    services.find((s) => s.language === "go")?.language ?? services[0]?.language ?? "";
  const configurations: ConfigurationDraft[] = [];
  for (const name of ["none", "batch-default"]) {
    const preset = presets.find((p) => p.name === name);
    if (preset)
      configurations.push(
        configurationFromPreset(
          preset,
          configurations.map((c) => c.name),
        ),
      );
  }
  if (configurations.length === 0) configurations.push(customConfiguration([]));
  const baseline =
    presets.find((p) => p.baseline && configurations.some((c) => c.preset === p.name))?.name ??
    null;
  return {
    name: "",
    language,
    configurations,
    baseline: configurations.find((c) => c.preset === baseline)?.uid ?? configurations[0].uid,
    load: {
      rate: "200",
      warmup_s: String(SPEC_DEFAULTS.warmup_s),
      duration_s: String(SPEC_DEFAULTS.duration_s),
      connections: String(SPEC_DEFAULTS.connections),
      max_throughput_s: String(SPEC_DEFAULTS.max_throughput_s),
      path: "/work",
      iters: "1000",
      spans: "5",
    },
    rounds: String(SPEC_DEFAULTS.rounds),
    seed: String(SPEC_DEFAULTS.seed),
    sampleStacks: SPEC_DEFAULTS.sample_stacks,
  };
}

/** The number typed, or undefined for a blank field (NaN for anything unparsable). */
export function parseNumber(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  return Number(trimmed);
}

function numberOrText(text: string): number | string {
  const parsed = Number(text.trim());
  return text.trim() !== "" && Number.isFinite(parsed) ? parsed : text;
}

/** Sets `key` on `target` only when the value is present. */
function put<T extends object, K extends keyof T>(
  target: T,
  key: K,
  value: T[K] | undefined,
): void {
  if (value !== undefined) target[key] = value;
}

/**
 * The spec to POST. A configuration names its preset only while every variable the preset sets
 * is still there: the API merges a preset's env under the given one, so a removed variable
 * would come back.
 */
export function toSpec(form: FormState, presets: readonly Preset[]): ExperimentSpec {
  const load = {} as ExperimentSpec["load"];
  put(load, "rate", parseNumber(form.load.rate));
  put(load, "warmup_s", parseNumber(form.load.warmup_s));
  put(load, "duration_s", parseNumber(form.load.duration_s));
  put(load, "connections", parseNumber(form.load.connections));
  put(load, "max_throughput_s", parseNumber(form.load.max_throughput_s));
  if (form.load.path.trim() !== "") load.path = form.load.path.trim();
  const query: Record<string, string | number> = {};
  if (form.load.iters.trim() !== "") query.iters = numberOrText(form.load.iters);
  if (form.load.spans.trim() !== "") query.spans = numberOrText(form.load.spans);
  load.query = query;

  const spec: ExperimentSpec = {
    subject: "service",
    service: { kind: "demo", language: form.language },
    configurations: form.configurations.map((draft) => {
      const env: Record<string, string> = {};
      for (const row of draft.env) {
        if (row.key.trim() === "" && row.value === "") continue;
        env[row.key.trim()] = row.value;
      }
      const preset = presets.find((p) => p.name === draft.preset);
      const keepsPreset =
        preset !== undefined && Object.keys(preset.env ?? {}).every((key) => key in env);
      // inject_busy_us (a harness check) is left to the API's default, 0.
      return {
        name: draft.name.trim(),
        processor: draft.processor,
        env,
        baseline: draft.uid === form.baseline,
        ...(keepsPreset ? { preset: preset.name } : {}),
      } as ExperimentSpec["configurations"][number];
    }),
    load,
    rounds: parseNumber(form.rounds) ?? SPEC_DEFAULTS.rounds,
    seed: parseNumber(form.seed) ?? SPEC_DEFAULTS.seed,
    sample_stacks: form.sampleStacks,
  };
  if (form.name.trim() !== "") spec.name = form.name.trim();
  return spec;
}
