// The new-experiment form as plain data, and how it becomes the API's ExperimentSpec.
// Inputs keep their text; the API validates (and its 422 is shown beside each field), so the
// form sends what the user typed and leaves blank optional fields to the API's defaults.
// The service is a demo service or "your service": a command (an argv, never a shell line)
// launched as it is or under its language's zero-code instrumentation.

import { OPENAPI_DEFAULTS, OPENAPI_ENUMS, OPENAPI_EXTENSIONS } from "../../api/openapiConstants";
import type { ExperimentSpec, Preset, Processor, ServiceInfo } from "../../api/types";
import {
  type ConcurrencyDraft,
  concurrencyKnobs,
  emptyConcurrency,
  toConcurrency,
} from "./concurrencyForm";

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
  /** Request concurrency and cores; blank knobs are the service's defaults. */
  concurrency: ConcurrencyDraft;
}

export interface LoadDraft {
  rate: string;
  warmup_s: string;
  duration_s: string;
  connections: string;
  max_throughput_s: string;
  /** The side-by-side phase: blank is as long as the measured phase, 0 turns it off. */
  side_by_side_s: string;
  /** Live instances of each configuration in that phase: blank is one. */
  side_by_side_instances: string;
  path: string;
  iters: string;
  spans: string;
}

/** A demo service (instrumented-services/) or the user's own command. */
export type ServiceKind = "demo" | "command";
type CommandServiceRef = Extract<ExperimentSpec["service"], { kind: "command" }>;
export type CommandLanguage = CommandServiceRef["language"];

const LANGUAGE_LABELS: Record<CommandLanguage, string> = {
  python: "Python",
  java: "Java (any JVM)",
  node: "Node.js",
  go: "Go",
  other: "Other",
};
/** The languages the API takes for a command, in its order, each with what the form shows. */
export const COMMAND_LANGUAGES: readonly { value: CommandLanguage; label: string }[] =
  OPENAPI_ENUMS.CommandServiceRef.language.map((value) => ({
    value,
    label: LANGUAGE_LABELS[value],
  }));
/**
 * Languages with a zero-code agent (`agent`): tracetax.demos.zero_code.AGENT_LANGUAGES, as the
 * OpenAPI publishes it (CommandServiceRef's `x-agent-languages`).
 */
export const AGENT_LANGUAGES: readonly CommandLanguage[] =
  OPENAPI_EXTENSIONS.CommandServiceRef["x-agent-languages"];
/** The methods a load's `method` takes, as the API publishes them (LoadSpec's `x-http-methods`). */
export const HTTP_METHODS = OPENAPI_EXTENSIONS.LoadSpec["x-http-methods"];
/** Methods whose requests carry no body (the API refuses one with them): `x-bodyless-methods`. */
export const BODYLESS_METHODS: readonly string[] =
  OPENAPI_EXTENSIONS.LoadSpec["x-bodyless-methods"];

/** One argument of the command: passed to the program as is, never split or quoted. */
export interface ArgRow {
  uid: string;
  value: string;
}

export interface PathRow {
  uid: string;
  path: string;
  weight: string;
}

export interface HeaderRow {
  uid: string;
  name: string;
  value: string;
}

/** "Your service": CommandServiceRef as typed. */
export interface CommandDraft {
  argv: ArgRow[];
  cwd: string;
  port: string;
  health_path: string;
  service_name: string;
  language: CommandLanguage;
  startup_timeout_s: string;
  spans_per_request: string;
  pprof_port: string;
}

/** What each request of the load is, for a command service (the demos' is path and query). */
export interface RequestDraft {
  method: string;
  paths: PathRow[];
  headers: HeaderRow[];
  body: string;
}

export interface FormState {
  name: string;
  kind: ServiceKind;
  /** The demo service's language (kind "demo"). */
  language: string;
  command: CommandDraft;
  request: RequestDraft;
  configurations: ConfigurationDraft[];
  /** Whether the user changed the configurations: until then they follow the service chosen. */
  configurationsEdited: boolean;
  /** uid of the one baseline configuration. */
  baseline: string;
  load: LoadDraft;
  rounds: string;
  seed: string;
  sampleStacks: boolean;
  precision: PrecisionDraft;
}

/** The metrics a precision may name: Precision's `metrics` items, as the API publishes them. */
export type PrecisionMetric = NonNullable<ExperimentSpec["precision"]>["metrics"][number];
/** Each with its label; a Record, so a metric the API adds fails the type check until labelled. */
export const PRECISION_METRIC_LABELS: Record<PrecisionMetric, string> = {
  p50: "p50",
  p90: "p90",
  p99: "p99",
  "p99.9": "p99.9",
  "p99.99": "p99.99",
  cpu_per_request_us: "CPU per request",
  rss_max_bytes: "RSS",
  max_throughput_rps: "Max throughput",
};
export const PRECISION_METRICS = Object.keys(PRECISION_METRIC_LABELS) as PrecisionMetric[];

/** "Add rounds until precise" (spec `precision`): sent only when on. */
export interface PrecisionDraft {
  enabled: boolean;
  metrics: PrecisionMetric[];
  half_width_pct: string;
  max_wall_time_s: string;
}

export function initialPrecision(): PrecisionDraft {
  return {
    enabled: false,
    metrics: ["p50", "cpu_per_request_us"],
    half_width_pct: "5",
    max_wall_time_s: "1800",
  };
}

const { CommandServiceRef: COMMAND, LoadSpec: LOAD, ExperimentSpec: EXPERIMENT } = OPENAPI_DEFAULTS;

/** The backend's defaults (from openapi.json), used when a field is left blank. */
export const SPEC_DEFAULTS = {
  health_path: COMMAND.health_path,
  service_name: COMMAND.service_name,
  startup_timeout_s: COMMAND.startup_timeout_s,
  warmup_s: LOAD.warmup_s,
  duration_s: LOAD.duration_s,
  connections: LOAD.connections,
  max_throughput_s: LOAD.max_throughput_s,
  stacks_s: LOAD.stacks_s,
  rounds: EXPERIMENT.rounds,
  seed: EXPERIMENT.seed,
  sample_stacks: EXPERIMENT.sample_stacks,
} as const;

export const PROCESSORS: readonly Processor[] = OPENAPI_ENUMS.ConfigurationSpec.processor;
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
    concurrency: emptyConcurrency(),
  };
}

export function customConfiguration(taken: readonly string[]): ConfigurationDraft {
  return {
    uid: uid("cfg"),
    name: uniqueName("custom", taken),
    preset: null,
    processor: "batch",
    env: [],
    concurrency: emptyConcurrency(),
  };
}

/** Presets that apply to `language` (a preset may name the languages it is for). */
export function presetsFor(presets: readonly Preset[], language: string): Preset[] {
  return presets.filter((preset) => !preset.languages || preset.languages.includes(language));
}

/** The presets a new form starts with for a service: the baseline and one instrumented launch. */
export function defaultPresetNames(kind: ServiceKind, language: string): string[] {
  if (kind === "demo") return ["none", "batch-default"];
  if ((AGENT_LANGUAGES as readonly string[]).includes(language)) return ["none", "zero-code"];
  if (language === "go") return ["none", "ebpf"];
  return ["none", "batch-default"];
}

/** The starting configurations for a service, and which of them is the baseline. */
export function defaultConfigurations(
  presets: readonly Preset[],
  kind: ServiceKind,
  language: string,
): { configurations: ConfigurationDraft[]; baseline: string } {
  const configurations: ConfigurationDraft[] = [];
  for (const name of defaultPresetNames(kind, language)) {
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
    configurations,
    baseline: configurations.find((c) => c.preset === baseline)?.uid ?? configurations[0].uid,
  };
}

export function argRows(values: readonly string[]): ArgRow[] {
  return values.map((value) => ({ uid: uid("arg"), value }));
}

export function initialCommand(): CommandDraft {
  return {
    argv: argRows([""]),
    cwd: "",
    port: "",
    health_path: SPEC_DEFAULTS.health_path,
    service_name: "",
    language: "python",
    startup_timeout_s: String(SPEC_DEFAULTS.startup_timeout_s),
    spans_per_request: "",
    pprof_port: "",
  };
}

export function initialRequest(): RequestDraft {
  return {
    method: "GET",
    paths: [{ uid: uid("path"), path: "/", weight: "1" }],
    headers: [],
    body: "",
  };
}

export function initialForm(
  services: readonly ServiceInfo[],
  presets: readonly Preset[],
): FormState {
  const language =
    services.find((s) => s.language === "go")?.language ?? services[0]?.language ?? "";
  return {
    name: "",
    kind: "demo",
    language,
    command: initialCommand(),
    request: initialRequest(),
    ...defaultConfigurations(presets, "demo", language),
    configurationsEdited: false,
    load: {
      rate: "200",
      warmup_s: String(SPEC_DEFAULTS.warmup_s),
      duration_s: String(SPEC_DEFAULTS.duration_s),
      connections: String(SPEC_DEFAULTS.connections),
      max_throughput_s: String(SPEC_DEFAULTS.max_throughput_s),
      side_by_side_s: "",
      side_by_side_instances: "",
      path: "/work",
      iters: "1000",
      spans: "5",
    },
    rounds: String(SPEC_DEFAULTS.rounds),
    seed: String(SPEC_DEFAULTS.seed),
    sampleStacks: SPEC_DEFAULTS.sample_stacks,
    precision: initialPrecision(),
  };
}

/** The language the configurations are for: the demo's, or the one declared for the command. */
export function targetLanguage(form: Pick<FormState, "kind" | "language" | "command">): string {
  return form.kind === "command" ? form.command.language : form.language;
}

/**
 * The form for another service (a demo, or the command in another language): the configurations
 * follow it until the user edits them; edited ones stay (a launch that no longer fits is marked).
 */
export function withService(
  form: FormState,
  presets: readonly Preset[],
  change: { kind?: ServiceKind; language?: string; commandLanguage?: CommandLanguage },
): FormState {
  const next: FormState = {
    ...form,
    kind: change.kind ?? form.kind,
    language: change.language ?? form.language,
    command: change.commandLanguage
      ? { ...form.command, language: change.commandLanguage }
      : form.command,
  };
  if (form.configurationsEdited) return next;
  return { ...next, ...defaultConfigurations(presets, next.kind, targetLanguage(next)) };
}

/** Why `processor` cannot launch a command service in `language`, or null when it can (as far
 * as the form can tell: whether the agent is installed here is the API's answer). */
export function commandProcessorProblem(language: string, processor: string): string | null {
  switch (processor) {
    case "none":
    case "batch":
      return null;
    case "simple":
      return "not for your own service: no standard variable selects SimpleSpanProcessor";
    case "agent":
      if ((AGENT_LANGUAGES as readonly string[]).includes(language)) return null;
      return language === "go"
        ? "no zero-code agent for Go: use ebpf"
        : "a zero-code agent needs Python, Java or Node";
    case "ebpf":
      return language === "go" ? null : "Go binaries only";
    default:
      return `unknown processor ${processor}`;
  }
}

const AGENTS: Record<string, string> = {
  python: "opentelemetry-instrument",
  java: "the Java agent (-javaagent)",
  node: "auto-instrumentations-node",
  go: "eBPF attached to the binary",
};

/** The zero-code instrumentation of a language (agent, or eBPF for Go), null for "other". */
export function zeroCodeLaunch(language: string): string | null {
  return AGENTS[language] ?? null;
}

/** How a command service is launched with `processor`, in words. */
export function launchLabel(language: string, processor: string): string {
  switch (processor) {
    case "none":
      return "as it is, SDK disabled, no agent";
    case "batch":
      return "as it is (its own SDK)";
    case "agent":
      return (AGENT_LANGUAGES as readonly string[]).includes(language)
        ? `zero-code: ${AGENTS[language]}`
        : "zero-code: its language's agent";
    case "ebpf":
      return `zero-code: ${AGENTS.go}`;
    default:
      return processor;
  }
}

/** A processor's launch of a command service in a few words, for a select's option. */
export function launchShort(processor: string): string {
  return (
    {
      none: "as it is, no SDK",
      batch: "as it is, its own SDK",
      agent: "zero-code agent",
      ebpf: "Go eBPF",
    }[processor] ?? processor
  );
}

/** A row's text split at whitespace: what a shell would have made of it (without quoting). */
export function splitArgument(value: string): string[] {
  return value.trim().split(/\s+/).filter(Boolean);
}

/** Whether an argument has whitespace in it (it is still one argument: a hint says so). */
export function hasWhitespace(value: string): boolean {
  return /\s/.test(value);
}

/** `rows` with the row at `index` moved by `delta` (-1 up, +1 down); unchanged at an end. */
export function moveRow<T>(rows: readonly T[], index: number, delta: number): T[] {
  const target = index + delta;
  if (index < 0 || index >= rows.length || target < 0 || target >= rows.length) return [...rows];
  const next = [...rows];
  [next[index], next[target]] = [next[target], next[index]];
  return next;
}

/** `rows` with the row at `index` replaced by one row per part. */
export function splitRow(rows: readonly ArgRow[], index: number): ArgRow[] {
  const parts = splitArgument(rows[index]?.value ?? "");
  if (parts.length === 0) return [...rows];
  return [...rows.slice(0, index), ...argRows(parts), ...rows.slice(index + 1)];
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
 * is still there (the API merges a preset's env under the given one, so a removed variable
 * would come back) and its processor is still the preset's (the API checks a preset's languages:
 * zero-code turned into batch is no longer zero-code). Its concurrency is sent only when a knob
 * the service has is set.
 */
export function toSpec(
  form: FormState,
  presets: readonly Preset[],
  /** The demo services: which concurrency knobs each has (only those are sent). */
  services: readonly ServiceInfo[],
): ExperimentSpec {
  const knobs = concurrencyKnobs(form, services);
  const load = {} as ExperimentSpec["load"];
  put(load, "rate", parseNumber(form.load.rate));
  put(load, "warmup_s", parseNumber(form.load.warmup_s));
  put(load, "duration_s", parseNumber(form.load.duration_s));
  put(load, "connections", parseNumber(form.load.connections));
  put(load, "max_throughput_s", parseNumber(form.load.max_throughput_s));
  put(load, "side_by_side_s", parseNumber(form.load.side_by_side_s));
  put(load, "side_by_side_instances", parseNumber(form.load.side_by_side_instances));
  if (form.kind === "command") {
    Object.assign(load, requestLoad(form.request));
  } else {
    if (form.load.path.trim() !== "") load.path = form.load.path.trim();
    const query: Record<string, string | number> = {};
    if (form.load.iters.trim() !== "") query.iters = numberOrText(form.load.iters);
    if (form.load.spans.trim() !== "") query.spans = numberOrText(form.load.spans);
    load.query = query;
  }

  const spec: ExperimentSpec = {
    subject: "service",
    service:
      form.kind === "command"
        ? commandService(form.command)
        : { kind: "demo", language: form.language },
    configurations: form.configurations.map((draft) => {
      const env: Record<string, string> = {};
      for (const row of draft.env) {
        if (row.key.trim() === "" && row.value === "") continue;
        env[row.key.trim()] = row.value;
      }
      const preset = presets.find((p) => p.name === draft.preset);
      const keepsPreset =
        preset !== undefined &&
        preset.processor === draft.processor &&
        Object.keys(preset.env ?? {}).every((key) => key in env);
      const concurrency = toConcurrency(draft.concurrency, knobs);
      // inject_busy_us (a harness check) is left to the API's default, 0.
      return {
        name: draft.name.trim(),
        processor: draft.processor,
        env,
        baseline: draft.uid === form.baseline,
        ...(keepsPreset ? { preset: preset.name } : {}),
        ...(concurrency ? { concurrency } : {}),
      } as ExperimentSpec["configurations"][number];
    }),
    load,
    rounds: parseNumber(form.rounds) ?? SPEC_DEFAULTS.rounds,
    seed: parseNumber(form.seed) ?? SPEC_DEFAULTS.seed,
    sample_stacks: form.sampleStacks,
  };
  if (form.name.trim() !== "") spec.name = form.name.trim();
  if (form.precision.enabled) spec.precision = toPrecision(form.precision);
  return spec;
}

/** The spec's `precision`: the metrics ticked, the half-width and wall time as typed. */
export function toPrecision(draft: PrecisionDraft): NonNullable<ExperimentSpec["precision"]> {
  const precision = {
    metrics: PRECISION_METRICS.filter((metric) => draft.metrics.includes(metric)),
  } as NonNullable<ExperimentSpec["precision"]>;
  if (draft.half_width_pct.trim() !== "")
    precision.half_width_pct = numberOrText(draft.half_width_pct) as number;
  if (draft.max_wall_time_s.trim() !== "")
    precision.max_wall_time_s = numberOrText(draft.max_wall_time_s) as number;
  return precision;
}

/**
 * The command service to POST: every argument as typed (only empty rows at the end are left
 * out, so the API's `service.argv.N` still names row N), blank optional fields left to the API.
 */
export function commandService(draft: CommandDraft): CommandServiceRef {
  const argv = draft.argv.map((row) => row.value);
  while (argv.length > 0 && argv[argv.length - 1] === "") argv.pop();
  const service = { kind: "command", argv } as CommandServiceRef;
  if (draft.cwd.trim() !== "") service.cwd = draft.cwd.trim();
  // Blank when argv says {port}: TraceTax picks a port per instance (and can run them side by side).
  if (draft.port.trim() !== "") service.port = numberOrText(draft.port) as number;
  if (draft.health_path.trim() !== "") service.health_path = draft.health_path.trim();
  if (draft.service_name.trim() !== "") service.service_name = draft.service_name.trim();
  service.language = draft.language;
  if (draft.startup_timeout_s.trim() !== "")
    service.startup_timeout_s = numberOrText(draft.startup_timeout_s) as number;
  if (draft.spans_per_request.trim() !== "")
    service.spans_per_request = numberOrText(draft.spans_per_request) as number;
  if (draft.pprof_port.trim() !== "") service.pprof_port = numberOrText(draft.pprof_port) as number;
  return service;
}

/**
 * A command service's requests: the method, the weighted paths (every row, so the API's
 * `load.paths.N` names row N), the headers with a name, and the body unless the method takes none.
 */
export function requestLoad(
  draft: RequestDraft,
): Pick<ExperimentSpec["load"], "method" | "paths" | "headers" | "body"> {
  const headers: Record<string, string> = {};
  for (const row of draft.headers) {
    if (row.name.trim() === "" && row.value === "") continue;
    headers[row.name.trim()] = row.value;
  }
  const load: Pick<ExperimentSpec["load"], "method" | "paths" | "headers" | "body"> = {
    method: draft.method,
    paths: draft.paths.map((row) =>
      row.weight.trim() === ""
        ? { path: row.path.trim() }
        : { path: row.path.trim(), weight: numberOrText(row.weight) as number },
    ) as NonNullable<ExperimentSpec["load"]["paths"]>,
    headers,
  };
  if (!BODYLESS_METHODS.includes(draft.method) && draft.body !== "") load.body = draft.body;
  return load;
}
