// Names for the generated OpenAPI types, plus the shapes the OpenAPI leaves open
// (`dict[str, Any]` in the backend): they mirror the backend modules named beside them.

import type { components } from "./schema";

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

// CI overhead checks (tracetax.api.routes.checks).
export type CheckRequest = Schemas["CheckRequest"];
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
  per_round: PerRoundAggregate[];
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
  | "max-throughput"
  | "stopping"
  | "aggregating"
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
