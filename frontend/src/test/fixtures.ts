// Small, realistic API payloads (shapes as the backend returns them).

import type {
  ConfigurationAggregates,
  ExperimentDetail,
  ExperimentResults,
  Preset,
  ResourceSample,
  RoundRaw,
  ServiceInfo,
} from "../api/types";

export const services: ServiceInfo[] = [
  {
    language: "go",
    framework: "net/http + otelhttp",
    sdk_version: "go.opentelemetry.io/otel/sdk v1.47.0",
    modes: [
      { name: "none", available: true, why: null },
      { name: "simple", available: true, why: null },
      { name: "batch", available: true, why: null },
      { name: "ebpf", available: false, why: "needs CAP_BPF" },
    ],
    queue_full: "drops the newest span",
    dropped_spans_metric: null,
    profiling_command: null,
  },
  {
    language: "java",
    framework: "JDK HttpServer",
    sdk_version: "1.58.0",
    modes: [
      { name: "none", available: true, why: null },
      { name: "batch", available: true, why: null },
      { name: "agent", available: true, why: null },
    ],
    queue_full: null,
    dropped_spans_metric: null,
    profiling_command: null,
  },
];

export const presets: Preset[] = [
  {
    name: "none",
    description: "No SDK.",
    processor: "none",
    env: {},
    baseline: true,
    languages: null,
  },
  {
    name: "simple",
    description: "Simple.",
    processor: "simple",
    env: {},
    baseline: false,
    languages: null,
  },
  {
    name: "batch-default",
    description: "Batch defaults.",
    processor: "batch",
    env: {},
    baseline: false,
    languages: null,
  },
  {
    name: "batch-tuned",
    description: "Tuned.",
    processor: "batch",
    env: { OTEL_BSP_MAX_QUEUE_SIZE: "8192", OTEL_BSP_SCHEDULE_DELAY: "1000" },
    baseline: false,
    languages: null,
  },
  {
    name: "java-agent",
    description: "Agent.",
    processor: "agent",
    env: {},
    baseline: false,
    languages: ["java"],
  },
];

export function sample(t: number, cpu: number): ResourceSample {
  return {
    t,
    cpu_user_s: cpu * 0.9,
    cpu_system_s: cpu * 0.1,
    rss_bytes: 30_000_000,
    ctx_voluntary: 10,
    ctx_involuntary: 5,
    threads: 4,
    by_thread: {},
  };
}

export function aggregates(
  configuration: string,
  scale: number,
  extra: Partial<ConfigurationAggregates> = {},
): ConfigurationAggregates {
  return {
    configuration,
    rounds_completed: 1,
    rounds_failed: 0,
    requests: 300,
    errors: 0,
    latency_us: {
      count: 300,
      mean: 700 * scale,
      min: 300 * scale,
      max: 8000 * scale,
      p50: 600 * scale,
      p90: 1000 * scale,
      p99: 4000 * scale,
      "p99.9": 6000 * scale,
      "p99.99": 8000 * scale,
    },
    percentile_curve: [
      [0, 300 * scale],
      [50, 600 * scale],
      [90, 1000 * scale],
      [99, 4000 * scale],
      [99.9, 6000 * scale],
      [100, 8000 * scale],
    ],
    histogram: null,
    max_throughput_rps: 8000 / scale,
    cpu_per_request_us: 500 * scale,
    cpu_utilization: 0.07 * scale,
    rss_max_bytes: 32 * 1024 * 1024 * scale,
    ctx_per_request: 1.1 * scale,
    per_round: [],
    ...extra,
  };
}

export function round(
  configuration: string,
  round_index: number,
  extra: Partial<RoundRaw> = {},
): RoundRaw {
  return {
    round_index,
    order_index: 0,
    configuration,
    run_id: `${configuration}-${round_index}`,
    status: "completed",
    started_at: "2026-11-21T13:36:38.433113",
    finished_at: "2026-11-21T13:36:49.206745",
    error: null,
    service_log_tail: null,
    exit_code: 0,
    placement: null,
    requests: 300,
    achieved_rps: 100,
    p99_us: 4000,
    max_throughput_rps: 8000,
    histogram: null,
    open_phase: null,
    closed_phase: null,
    resources: null,
    samples: [
      sample(0, 1),
      sample(0.25, 1.05),
      sample(0.5, 1.15),
    ] as unknown as RoundRaw["samples"],
    ...extra,
  };
}

export function experiment(extra: Partial<ExperimentDetail> = {}): ExperimentDetail {
  return {
    id: "0f3c9a2e-1111-2222-3333-444455556666",
    name: "go processors",
    status: "completed",
    service: "go",
    configurations: ["none", "batch-default"],
    baseline: "none",
    created_at: "2026-11-21T13:36:38.393778",
    started_at: "2026-11-21T13:36:38.426431",
    finished_at: "2026-11-21T13:37:09.692422",
    queue_position: null,
    error: null,
    spec: {
      service: { kind: "demo", language: "go" },
      configurations: [
        { name: "none", processor: "none", env: {}, baseline: true, preset: "none" },
        {
          name: "batch-default",
          processor: "batch",
          env: {},
          baseline: false,
          preset: "batch-default",
        },
      ],
      load: {
        rate: 100,
        warmup_s: 1,
        duration_s: 3,
        connections: 16,
        max_throughput_s: 2,
        path: "/work",
      },
      rounds: 1,
      seed: 0,
    },
    environment: null,
    rounds: [],
    ...extra,
  };
}

export function results(extra: Partial<ExperimentResults> = {}): ExperimentResults {
  return {
    experiment_id: experiment().id,
    status: "completed",
    baseline: "none",
    configurations: [aggregates("none", 1), aggregates("batch-default", 1.5)],
    rounds: [round("none", 0), round("batch-default", 0, { order_index: 1 })],
    ...extra,
  };
}
