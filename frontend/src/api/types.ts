// Names for the generated OpenAPI types (schema.d.ts, `npm run gen:api`). Written here by hand
// only what the OpenAPI does not describe: Tempo's trace as it is passed through, the progress
// events of the event stream, and the request bodies a form may leave defaults out of.

import type { components, paths } from "./schema";

type Schemas = components["schemas"];

export type ExperimentSummary = Schemas["ExperimentSummary"];
export type ExperimentDetail = Schemas["ExperimentDetail"];
export type ExperimentCreated = Schemas["ExperimentCreated"];
export type ExperimentSpec = Schemas["ExperimentSpec"];
export type ConfigurationSpec = Schemas["ConfigurationSpec"];
export type LoadSpec = Schemas["LoadSpec"];
export type RoundSummary = Schemas["RoundSummary"];
export type RoundRaw = Schemas["RoundRaw"];
export type ServiceInfo = Schemas["ServiceInfo"];
export type ModeInfo = Schemas["ModeInfo"];
export type Preset = Schemas["Preset"];
export type HealthReport = Schemas["HealthAnswer"];
/** A native stack component's restarts by the stack's watcher (`make up`). */
export type ComponentRestarts = Schemas["ComponentRestarts"];
export type ComponentHealth = Schemas["ComponentHealth"];
export type Processor = ConfigurationSpec["processor"];
/** Request concurrency and cores: a configuration's, or a whole tuning run's (spec/service.py). */
export type Concurrency = Schemas["Concurrency"];

// Diagnostics of a finished experiment (tracetax.diagnostics.report).
export type Diagnostics = Schemas["Diagnostics"];
/** A point estimate with its 95% interval (null where it could not be computed). */
export type Interval = Schemas["Interval"];
/** How one metric of a configuration differs from the baseline's (diagnostics/overhead.py). */
export type Change = Schemas["Change"];
/** The smallest change of a metric an experiment (or a calibration) can tell from noise. */
export type NoiseFloor = Schemas["NoiseFloor"];
export type RoundLedger = Schemas["RoundLedger"];
export type SignalLedger = Schemas["SignalLedger"];
export type LedgerStage = Schemas["Stage"];
export type StackSummary = Schemas["StackSummary"];
export type ExportLocation = Schemas["ExportLocation"];
export type FlameGraph = Schemas["FlameGraph"];
export type FlameNode = Schemas["FlameNode"];
/** Where the added cost went: two sides' stacks, per frame (GET …/stacks/{c}/diff). */
export type FlameDiff = Schemas["FlameDiff"];
export type FlameDiffNode = Schemas["FlameDiffNode"];
export type Recommendation = Schemas["Recommendation"];
export type RuleFiring = Schemas["RuleFiring"];
export type ExperimentLogs = Schemas["ExperimentLogs"];
export type LogRecord = Schemas["LogRecord"];
export type Meta = Schemas["Meta"];
export type GrafanaLinks = Schemas["GrafanaLinks"];

// What a service experiment's configurations cost at the user's traffic
// (tracetax.diagnostics.cost and cost_report, api/routes/costs.py).
export type CostReport = Schemas["CostReport"];
/** The cost model's inputs as the API used them (its defaults filled in). */
export type CostInputs = Schemas["CostInputs"];
/** A mean over rounds with its 95% interval; `estimate` null where unknown (never 0). */
export type Figure = Schemas["Figure"];
export type ConfigurationCost = Schemas["ConfigurationCost"];
export type ComponentCost = Schemas["ComponentCost"];
export type CostComponent = ComponentCost["component"];
export type SignalCost = Schemas["SignalCost"];
export type CollectorFigure = Schemas["CollectorFigure"];
export type RecommendedCost = Schemas["RecommendedCost"];
/** GET …/cost's query string: the inputs, and the pipeline experiment that sizes the Collector. */
export type CostQuery = NonNullable<
  paths["/api/v1/experiments/{experiment_id}/cost"]["get"]["parameters"]["query"]
>;

// CI overhead checks (tracetax.api.routes.checks): a service's (`subject: "service"`) or a
// Collector pipeline's (`subject: "collector"`).
export type CheckRequest = Schemas["CheckRequest"];
export type PipelineCheckRequest = Schemas["PipelineCheckRequest"];
/** The body of POST /api/v1/checks: `subject` says which. */
export type AnyCheckRequest = CheckRequest | PipelineCheckRequest;
export type CheckCreated = Schemas["CheckCreated"];
export type CheckStatus = Schemas["CheckStatus"];
/** A check as CI runs it: its request, `tracetax check` (flags or a file, and why) and curl. */
export type CheckCommands = Schemas["CheckCommands"];
export type CliCommand = Schemas["CliCommand"];
export type Budget = Schemas["Budget"];
export type BudgetLine = Schemas["BudgetLine"];
export type Verdict = Schemas["Verdict"];
/** Where a check or an experiment came from (repository, branch, commit, PR, CI run). */
export type Provenance = Schemas["Provenance"];
/** A check's gate against its branch's history (`--against-history main:10`). */
export type HistoryGate = Schemas["HistoryGate"];
/** A check's verdict against its branch's history on one metric. */
export type HistoryJudgement = Schemas["HistoryJudgementModel"];

// Overhead history (api/routes/history.py): every check of a configuration by commit.
export type HistorySeries = Schemas["HistorySeries"];
export type HistoryPoint = Schemas["HistoryPoint"];
export type HistoryChangePoint = Schemas["HistoryChangePoint"];
export type ServiceHistory = Schemas["ServiceHistory"];
export type ServiceRef = CheckRequest["service"];

// Calibrations: A/A experiments whose noise floor checks are held to (api/routes/calibrations.py).
export type CalibrationRequest = Schemas["CalibrationRequest"];
export type CalibrationCreated = Schemas["CalibrationCreated"];
export type CalibrationStatus = Schemas["CalibrationStatus"];

/** How long a spec, a check or a calibration would take, and how it adds up (POST …/estimate). */
export type SpecEstimate = Schemas["SpecEstimate"];
export type SpecCommands = Schemas["SpecCommands"];

// Tuning runs: OTEL_BSP_* searched within a wall-time budget, the winner confirmed against the
// SDK defaults (api/routes/tunings.py, tuning/search.py; docs/tuning.md).
export type TuningSpec = Schemas["TuningSpec"];
export type TuningCreated = Schemas["TuningCreated"];
export type TuningSummary = Schemas["TuningSummary"];
export type TuningDetail = Schemas["TuningDetail"];
export type TuningReport = Schemas["TuningReportModel"];
export type TuningRung = Schemas["TuningRung"];
/** One measured setting: changes against no SDK; null where not measured. */
export type TuningOutcome = Schemas["TuningOutcome"];
export type TuningChoice = Schemas["TuningChoice"];

// Collector pipelines (tracetax.spec.collector, engine/aggregate.py `aggregate_variant`,
// diagnostics/pipeline.py and pipeline_recommend.py, lab/ledger.py): an experiment whose spec
// has `subject: "collector"`.
export type PipelineSpec = Schemas["PipelineSpec"];
export type VariantSpec = Schemas["VariantSpec"];
export type SpanLoadSpec = Schemas["SpanLoadSpec"];
export type RampSpec = Schemas["RampSpec"];
export type PipelineVariantInfo = Schemas["PipelineVariantInfo"];
/** GET …/diagnostics of a pipeline experiment. */
export type PipelineDiagnostics = Schemas["PipelineDiagnostics"];
export type PipelineRoundLedger = Schemas["PipelineRoundLedger"];
/** Sizing for a span rate (by default the measured one), batch settings, trace holding. */
export type PipelineRecommendation = Schemas["PipelineRecommendation"];
export type VariantSizing = Schemas["VariantSizing"];

// Requests may leave out what the API defaults; the generated types mark such fields required
// (a response always carries them), so the bodies a form sends are typed here. The one place
// that posts them (useChecks, usePipelines) hands them to the typed client as the generated type.
type Defaulted<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;
/** A pipeline variant to run: `name` defaults to the shipped pipeline's (required with config_file). */
export type VariantRequest = Defaulted<VariantSpec, "name" | "baseline" | "settings">;
export type PipelineSpecRequest = Defaulted<
  Omit<PipelineSpec, "configurations" | "load">,
  "rounds" | "seed"
> & {
  configurations: VariantRequest[];
  load: Defaulted<
    SpanLoadSpec,
    | "warmup_s"
    | "duration_s"
    | "drain_s"
    | "spans_per_trace"
    | "attribute_bytes"
    | "services_per_trace"
  >;
};
export type PipelineCheckBody = Defaulted<
  Omit<PipelineCheckRequest, "baseline" | "candidate" | "load">,
  "rounds" | "seed" | "strict"
> & {
  baseline: VariantRequest;
  candidate: VariantRequest;
  load: PipelineSpecRequest["load"];
};
/** What POST /api/v1/checks is sent: a service check or a pipeline check. */
export type CheckBody = CheckRequest | PipelineCheckBody;

/** What is measured: a service, or a Collector pipeline (ExperimentSummary.subject, spec.subject). */
export const COLLECTOR_SUBJECT = "collector";

/** Whether an experiment measures a Collector pipeline (its detail's `spec.subject`). */
export function isPipelineExperiment(experiment: { spec?: unknown }): boolean {
  const spec = experiment.spec as { subject?: unknown } | null | undefined;
  return spec?.subject === COLLECTOR_SUBJECT;
}

/** Whether a listed experiment (a summary) measures a Collector pipeline. */
export function isPipelineSummary(summary: Pick<ExperimentSummary, "subject">): boolean {
  return summary.subject === COLLECTOR_SUBJECT;
}

/**
 * The list filters by service (`?service=`), not by subject: a pipeline experiment's service is
 * "collector".
 */
export const COLLECTOR_SERVICE = "collector";

// What GET …/results and a pipeline's …/diagnostics hold, per subject (api/schemas/results.py,
// which names each producer: engine/aggregate.py, lab/ledger.py, lab/ramp.py, ...).
/** Where a round's spans went, stage by stage, after the drain; a key is absent where not stored. */
export type PipelineLedger = Schemas["PipelineLedger"];
/** What of a round reached Tempo (diagnostics/pipeline_traces.py); {error} when it did not answer. */
export type StoredTraces = Schemas["StoredTraces"];
/** One step of a round's ramp (lab/ramp.py): a rate held, and whether the pipeline kept up. */
export type RampStep = Schemas["RampStep"];
/** A round's `closed_phase`: a pipeline's ramp, when the spec asked for one. */
export type PipelineClosedPhase = Schemas["ClosedPhase"];
export type PipelinePerRound = Schemas["PipelinePerRound"];
/** A step of a round's ramp as the aggregates keep it: what a capacity plan reads. */
export type RampPoint = Schemas["RampPoint"];
/** One variant over its completed rounds (medians; the ledger's totals summed, null if unknown). */
export type PipelineAggregates = Schemas["PipelineAggregates"];

/** A ledger entry's `stored` read-back; null until collected. */
export function storedOf(entry: Pick<PipelineRoundLedger, "stored">): StoredTraces | null {
  return entry.stored ?? null;
}

/** A pipeline experiment's results: the OpenAPI's union of subjects' figures, narrowed. */
export type PipelineResults = Omit<Schemas["ExperimentResults"], "configurations"> & {
  configurations: PipelineAggregates[];
};

/** Experiment states after which nothing changes (tracetax.db.repository.FINAL_EXPERIMENT_STATES). */
export const FINAL_STATES = ["completed", "failed", "cancelled", "interrupted"] as const;

export function isFinal(status: string): boolean {
  return (FINAL_STATES as readonly string[]).includes(status);
}

/** Latency summary of the merged histogram (tracetax.engine.aggregate), microseconds. */
export type LatencySummary = Schemas["LatencySummary"];
export type PerRoundAggregate = Schemas["PerRoundAggregate"];
/** One entry of a service experiment's results (engine/aggregate.py `aggregate_configuration`). */
export type ConfigurationAggregates = Schemas["ConfigurationAggregates"];
/** One thread group of a configuration; per span null where unknown (never 0). */
export type ThreadGroupFigures = Schemas["ThreadGroupFigures"];
/** One 250 ms resource sample of a round (tracetax.engine.sampler); CPU is cumulative. */
export type ResourceSample = Schemas["ResourceSample"];

/** A service experiment's results: the OpenAPI's union of subjects' figures, narrowed. */
export type ExperimentResults = Omit<Schemas["ExperimentResults"], "configurations"> & {
  configurations: ConfigurationAggregates[];
};

/** A span of a trace as Tempo returns it in OTLP JSON (ids base64 or hex, times in ns as text). */
export interface OtlpSpan {
  traceId?: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: string | number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  status?: { code?: string | number; message?: string };
  attributes?: OtlpAttribute[];
}

export interface OtlpAttribute {
  key: string;
  value: Record<string, unknown>;
}

/** GET /api/v1/traces/{id}: Tempo's OTLP JSON (`batches` in Tempo 1.x/2.x, or `resourceSpans`). */
export interface OtlpTrace {
  batches?: OtlpResourceSpans[];
  resourceSpans?: OtlpResourceSpans[];
}

export interface OtlpResourceSpans {
  resource?: { attributes?: OtlpAttribute[] };
  scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[];
  instrumentationLibrarySpans?: { spans?: OtlpSpan[] }[];
}

export type Phase =
  | "queued"
  | "starting"
  | "warmup"
  | "side-by-side"
  | "measuring"
  | "stacks"
  | "max-throughput"
  | "draining"
  | "ramp"
  | "stopping"
  | "aggregating"
  | "collecting"
  | "finished";

/** A `progress` server-sent event (tracetax.engine.progress.Progress); not in the OpenAPI. */
export interface ProgressEvent {
  experiment_id: string;
  status: string;
  phase: Phase;
  configuration?: string | null;
  /** 0-based round index. */
  round?: number | null;
  rounds?: number;
  /** 0-based index of the (round, configuration) slot being measured. */
  slot?: number;
  slots?: number;
  elapsed_s?: number;
  remaining_s?: number | null;
  phase_elapsed_s?: number;
  phase_duration_s?: number | null;
  current_rps?: number | null;
  current_p99_us?: number | null;
  service_cpu_utilization?: number | null;
  message?: string | null;
  /** Only on the `queued` event: 1 is next. */
  queue_position?: number | null;
}
