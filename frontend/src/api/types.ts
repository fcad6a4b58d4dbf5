// Names for the generated OpenAPI types, plus the shapes the OpenAPI leaves open
// (`dict[str, Any]` in the backend): they mirror the backend modules named beside them.

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
export type HealthReport = Schemas["HealthReport"];
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
export type Budget = Schemas["Budget"];
export type BudgetLine = Schemas["BudgetLine"];
export type Verdict = Schemas["Verdict"];
export type ServiceRef = CheckRequest["service"];

// Calibrations: A/A experiments whose noise floor checks are held to (api/routes/calibrations.py).
export type CalibrationRequest = Schemas["CalibrationRequest"];
export type CalibrationCreated = Schemas["CalibrationCreated"];
export type CalibrationStatus = Schemas["CalibrationStatus"];

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
/** GET …/diagnostics of a pipeline experiment (its `ledger` entries' dicts are typed below). */
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

/** Where a round's spans went, stage by stage, after the drain (lab/ledger.py `ledger`). */
export interface PipelineLedger {
  generated: number | null;
  receiver: { accepted: number | null; refused: number | null; not_received: number | null };
  /** Spans into and out of each processor of the lab pipeline. */
  processors?: Record<
    string,
    { incoming: number | null; outgoing: number | null; held_or_dropped: number | null }
  >;
  /** Each processor's own counters, as the Collector names them. */
  processor_counters?: Record<string, number>;
  exporter: {
    sent: number | null;
    send_failed: number | null;
    enqueue_failed: number | null;
    /** Left in the queue after the drain. */
    queue_size: number | null;
  };
  downstream: {
    accepted: number | null;
    by_collector: Record<string, number | null>;
    sent: number | null;
    send_failed: number | null;
  };
  /** Generated and never arrived downstream (a sampling pipeline's kept-out traces too). */
  not_arrived: number | null;
  /** What a stage reports losing (sampling pipelines), else what never arrived. */
  lost: number | null;
  kept_ratio: number | null;
}

/** What of a round reached Tempo (diagnostics/pipeline_traces.py); {error} when it did not answer. */
export interface StoredTraces {
  error?: string;
  /** Search stopped at its limit: no span count; the checks below are on a sample. */
  uncounted?: string;
  traces_found?: number | null;
  traces_checked?: number;
  stored_spans?: number | null;
  /** False: counted from search matches, not from every trace fetched whole. */
  stored_spans_exact?: boolean;
  complete_traces?: number;
  incomplete_examples?: string[];
  whole_on_one_downstream?: number;
  traces_by_downstream?: Record<string, number>;
  split_examples?: string[];
  unmarked_traces?: number;
  sample_trace_ids?: string[];
}

/** A ledger entry's `ledger` dict (left open in the OpenAPI) as lab/ledger.py writes it. */
export function ledgerOf(entry: Pick<PipelineRoundLedger, "ledger">): Partial<PipelineLedger> {
  return (entry.ledger ?? {}) as Partial<PipelineLedger>;
}

/** A ledger entry's `stored` dict (left open in the OpenAPI); null until collected. */
export function storedOf(entry: Pick<PipelineRoundLedger, "stored">): StoredTraces | null {
  return (entry.stored ?? null) as StoredTraces | null;
}

/** One step of a round's ramp (lab/ramp.py): a rate held, and whether the pipeline kept up. */
export interface RampStep {
  spans_per_s: number;
  achieved_spans_per_s?: number | null;
  cpu_cores?: number | null;
  refused?: number | null;
  send_failed?: number | null;
  enqueue_failed?: number | null;
  queue_size?: number | null;
  sustained?: boolean | null;
  limited_by?: string | null;
  why?: string | null;
}

/** A pipeline round's `closed_phase`: its ramp, when the spec asked for one. */
export interface PipelineClosedPhase {
  ramp?: RampStep[];
  max_sustainable_spans_per_s?: number | null;
  limited_by?: string | null;
  why?: string | null;
}

export interface PipelinePerRound {
  round: number;
  cpu_cores: number | null;
  spans_per_s: number | null;
  spans_per_s_per_core: number | null;
  cores_per_10k_spans_s: number | null;
  rss_max_bytes: number | null;
  rss_steady_bytes: number | null;
  downstream_cpu_cores: number | null;
  ledger: Partial<PipelineLedger> | null;
  generator: Record<string, unknown> | null;
  max_sustainable_spans_per_s?: number | null;
  /** What stopped this round's ramp; null without one. */
  ramp_limited_by?: string | null;
  /** CPU against rate along this round's ramp (aggregate.py `_curve`); empty (or null, in
   * results stored before it) without one. */
  ramp?: RampPoint[] | null;
}

/** A step of a round's ramp as the aggregates keep it: what a capacity plan reads. */
export interface RampPoint {
  spans_per_s: number;
  achieved_spans_per_s: number | null;
  cpu_cores: number | null;
  rss_max_bytes: number | null;
  sustained: boolean | null;
  why: string | null;
}

/** One variant over its completed rounds (medians; the ledger's totals summed, null if unknown). */
export interface PipelineAggregates {
  configuration: string;
  subject: "collector";
  rounds_completed: number;
  rounds_failed: number;
  /** The lab Collector's cores over the measured phase. */
  cpu_cores: number | null;
  /** Spans per second the lab Collector's receiver accepted. */
  spans_per_s: number | null;
  spans_per_s_per_core: number | null;
  cores_per_10k_spans_s: number | null;
  rss_max_bytes: number | null;
  /** Median RSS over the second half of the measured phase. */
  rss_steady_bytes: number | null;
  downstream_cpu_cores: number | null;
  kept_ratio: number | null;
  /** telemetrygen could not deliver the rate in some round. */
  generator_saturated: boolean;
  ledger_totals: { generated: number | null; lost: number | null; not_arrived: number | null };
  /** From the ramp, when there was one. */
  max_sustainable_spans_per_s?: number | null;
  ramp_limited_by?: string[];
  per_round: PipelinePerRound[];
}

export type PipelineResults = Omit<Schemas["ExperimentResults"], "configurations"> & {
  configurations: PipelineAggregates[];
};

/** Experiment states after which nothing changes (tracetax.db.repository.FINAL_EXPERIMENT_STATES). */
export const FINAL_STATES = ["completed", "failed", "cancelled", "interrupted"] as const;

export function isFinal(status: string): boolean {
  return (FINAL_STATES as readonly string[]).includes(status);
}

/** Latency summary of the merged histogram (tracetax.engine.aggregate), microseconds. */
export interface LatencySummary {
  count: number;
  mean: number;
  min: number;
  max: number;
  p50?: number;
  p90?: number;
  p99?: number;
  "p99.9"?: number;
  "p99.99"?: number;
}

export interface PerRoundAggregate {
  round: number;
  requests: number | null;
  achieved_rps: number | null;
  p99_us: number | null;
  max_throughput_rps: number | null;
  cpu_per_request_us: number | null;
  cpu_utilization: number | null;
  rss_max_bytes: number | null;
  ctx_per_request: number | null;
}

/** One entry of ExperimentResults.configurations (tracetax.engine.aggregate.aggregate_configuration). */
export interface ConfigurationAggregates {
  configuration: string;
  rounds_completed: number;
  rounds_failed: number;
  requests: number;
  errors: number;
  latency_us: LatencySummary;
  /** [percentile (0..100), latency µs] from the merged HDR histogram. */
  percentile_curve: [number, number][];
  histogram: string | null;
  max_throughput_rps: number | null;
  cpu_per_request_us: number | null;
  cpu_utilization: number | null;
  rss_max_bytes: number | null;
  ctx_per_request: number | null;
  /** Per thread group (a thread name, trailing digits as `*`); absent in results stored before
   * thread groups were measured. */
  thread_groups?: Record<string, ThreadGroupFigures>;
  per_round: PerRoundAggregate[];
}

/**
 * One thread group of a configuration (aggregate.py `thread_groups`): the most threads it had in
 * a round, the rounds it ran in, and medians over them; per span only where the spans a request
 * makes are known (null otherwise: unknown, never 0).
 */
export interface ThreadGroupFigures {
  threads: number;
  rounds: number;
  cpu_per_request_us: number | null;
  ctx_per_request: number | null;
  cpu_per_span_us: number | null;
  ctx_per_span: number | null;
}

/** One 250 ms resource sample of a round (tracetax.engine.sampler); CPU is cumulative. */
export interface ResourceSample {
  /** Seconds since the sampler started. */
  t: number;
  cpu_user_s: number;
  cpu_system_s: number;
  rss_bytes: number;
  ctx_voluntary: number;
  ctx_involuntary: number;
  threads: number;
  by_thread: Record<string, [number, number]>;
  loadgen_cpu_s?: number;
}

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
