// Small, realistic API payloads (shapes as the backend returns them).

import type {
  CalibrationStatus,
  Change,
  CheckStatus,
  ConfigurationAggregates,
  ConfigurationCost,
  CostReport,
  Diagnostics,
  ExperimentDetail,
  ExperimentLogs,
  ExperimentResults,
  Figure,
  FlameGraph,
  Interval,
  Meta,
  NoiseFloor,
  OtlpTrace,
  Preset,
  ResourceSample,
  RoundLedger,
  RoundRaw,
  ServiceInfo,
  SignalLedger,
  StackSummary,
} from "../api/types";
import { COST_DEFAULTS } from "../components/results/costInputs";

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
    concurrency: ["gomaxprocs"],
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
    concurrency: ["threads"],
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
    subject: "service",
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

// Diagnostics ---------------------------------------------------------------------------------

export function interval(
  estimate: number | null,
  low: number | null = null,
  high: number | null = null,
): Interval {
  return { estimate, low, high };
}

const METRIC_INFO: Record<string, { label: string; unit: string; higher_is_worse: boolean }> = {
  p50: { label: "p50", unit: "us", higher_is_worse: true },
  p90: { label: "p90", unit: "us", higher_is_worse: true },
  p99: { label: "p99", unit: "us", higher_is_worse: true },
  "p99.9": { label: "p99.9", unit: "us", higher_is_worse: true },
  cpu_per_request_us: { label: "CPU per request", unit: "us", higher_is_worse: true },
  rss_max_bytes: { label: "RSS", unit: "bytes", higher_is_worse: true },
  max_throughput_rps: { label: "max throughput", unit: "req/s", higher_is_worse: false },
};

/** A paired change of one metric as diagnostics/overhead.py writes it. */
export function change(
  metric: string,
  absolute: [number | null, (number | null)?, (number | null)?],
  relative: [number | null, (number | null)?, (number | null)?],
  extra: Partial<Change> = {},
): Change {
  const info = METRIC_INFO[metric];
  return {
    metric,
    ...info,
    pairs: 5,
    baseline: null,
    candidate: null,
    absolute: interval(absolute[0], absolute[1] ?? null, absolute[2] ?? null),
    relative_pct: interval(relative[0], relative[1] ?? null, relative[2] ?? null),
    p_value: 0.2,
    p_adjusted: 0.8,
    significant: false,
    direction: "unchanged",
    summary: `${info.label}: change`,
    note: null,
    ...extra,
  };
}

/** A metric's noise floor (± half-width in % and in its unit) at `pairs` rounds. */
export function noiseFloor(
  metric: string,
  relative: number | null,
  absolute: number | null,
  extra: Partial<NoiseFloor> = {},
): NoiseFloor {
  const { label, unit } = METRIC_INFO[metric];
  return {
    metric,
    label,
    unit,
    relative_pct: relative,
    absolute,
    pairs: relative == null ? 0 : 5,
    sd_log: relative == null ? null : 0.05,
    df: relative == null ? 0 : 4,
    note:
      relative == null
        ? "needs a second configuration with at least 2 rounds paired with the baseline (an A/A: tracetax calibrate)"
        : null,
    ...extra,
  };
}

/** One signal's ledger; `values` in stage order, null for an unknown stage. */
export function signal(
  name: SignalLedger["signal"],
  stages: [string, number | null, string?][],
  balanced: boolean | null = true,
): SignalLedger {
  return {
    signal: name,
    stages: stages.map(([stage, value, reason]) => ({
      stage,
      value,
      unknown_reason: value == null ? (reason ?? "Tempo: connection refused") : null,
    })),
    balanced,
    note: null,
  };
}

export function spansLedger(
  expected: number,
  dropped: number | null,
  accepted: number,
  stored: number | null,
): SignalLedger {
  const known = [expected, dropped, accepted, stored].every((v) => v != null);
  return signal(
    "spans",
    [
      ["expected", expected],
      ["sdk_dropped", dropped, "this SDK exposes no dropped-span counter"],
      ["collector_accepted", accepted],
      ["collector_refused", 0],
      ["exporter_sent", accepted],
      ["exporter_failed", 0],
      ["stored", stored, "Tempo: HTTP 503"],
    ],
    known ? expected === (stored ?? 0) + (dropped ?? 0) : null,
  );
}

export function roundLedger(
  configuration: string,
  round_index: number,
  signals: SignalLedger[],
): RoundLedger {
  return {
    configuration,
    round_index,
    run_id: `${configuration}-${round_index}`,
    window: ["2026-11-21T13:36:38Z", "2026-11-21T13:36:49Z"],
    signals,
  };
}

export function stackSummary(
  configuration: string,
  shares: Partial<Record<string, number>> | null,
  extra: Partial<StackSummary> = {},
): StackSummary {
  return {
    configuration,
    sampler: shares ? "go-pprof" : null,
    rounds_sampled: shares ? 1 : 0,
    problems: shares ? [] : ["stack sampling was off for this experiment (sample_stacks: false)"],
    location: shares
      ? {
          sampler: "go-pprof",
          samples: 100,
          cells: {},
          export_request_path: shares.export_request_path ?? 0,
          export_background: shares.export_background ?? 0,
          export_unattributed: shares.export_unattributed ?? 0,
          sdk_other: shares.sdk_other ?? 0,
          application: shares.application ?? 0,
          export_share:
            (shares.export_request_path ?? 0) +
            (shares.export_background ?? 0) +
            (shares.export_unattributed ?? 0),
          export_on_request_path_of_export: null,
          distinguishable: true,
          note: "goroutine labels tell request goroutines from the SDK's",
        }
      : null,
    export_cpu_per_request_us: shares ? 120 : null,
    ...extra,
  };
}

export const TRACE_ID = "4f71fa22351c1e0f1f038a18eeb74101";

export function diagnostics(extra: Partial<Diagnostics> = {}): Diagnostics {
  return {
    subject: "service",
    experiment_id: experiment().id,
    baseline: "none",
    overhead: {
      "batch-default": {
        p50: change("p50", [300, 249, 351], [50, 41.5, 58.25], {
          p_value: 0.0004,
          p_adjusted: 0.0028,
          significant: true,
          direction: "worse",
          summary: "+300 µs p50 (+249 µs to +351 µs), +50.0% — worse",
        }),
        p90: change("p90", [400, -288, 1103], [40, -28.8, 110.3]),
        p99: change("p99", [2000, -4000, 17424], [50, -20.5, 182.4]),
        "p99.9": change("p99.9", [-1300, -5000, 2400], [-21.7, -55, 36]),
        max_throughput_rps: change("max_throughput_rps", [-576, -600, -550], [-97, -97.5, -96.4], {
          p_value: 0.0001,
          p_adjusted: 0.0007,
          significant: true,
          direction: "worse",
          summary:
            "\u2212576 req/s max throughput (\u2212600 req/s to \u2212550 req/s), \u221297.0% — worse",
        }),
        cpu_per_request_us: change("cpu_per_request_us", [250], [50], {
          pairs: 1,
          p_value: null,
          p_adjusted: null,
          note: "an interval needs at least 2 paired rounds",
        }),
        rss_max_bytes: change("rss_max_bytes", [-4026531, -4697620, -3355443], [-12, -14, -10], {
          p_value: 0.001,
          p_adjusted: 0.006,
          significant: true,
          direction: "better",
        }),
      },
    },
    noise_floor: {
      p50: noiseFloor("p50", 6.4, 38.4),
      p90: noiseFloor("p90", 54.5, 545),
      p99: noiseFloor("p99", 38.75, 1550),
      "p99.9": noiseFloor("p99.9", 28.3, 1698),
      max_throughput_rps: noiseFloor("max_throughput_rps", null, null),
      cpu_per_request_us: noiseFloor("cpu_per_request_us", 31, 155),
      rss_max_bytes: noiseFloor("rss_max_bytes", 0.9, 301990),
    },
    flagged_rounds: [],
    stack_down_rounds: [],
    ledger: [
      roundLedger("none", 0, [
        spansLedger(0, 0, 0, 0),
        signal("request_counter", [
          ["expected", 0],
          ["stored", 0],
        ]),
      ]),
      roundLedger("batch-default", 0, [
        spansLedger(1500, 0, 1500, null),
        signal("log_records", [
          ["expected", 300],
          ["collector_accepted", 300],
          ["collector_refused", 0],
          ["exporter_sent", 300],
          ["exporter_failed", 0],
          ["stored", 300],
        ]),
        signal("request_counter", [
          ["expected", 300],
          ["stored", 300],
        ]),
      ]),
    ],
    dropped_spans: { none: 0, "batch-default": null },
    sample_traces: { none: [], "batch-default": [TRACE_ID] },
    where_export_runs: {
      none: stackSummary("none", { application: 1 }),
      "batch-default": stackSummary("batch-default", {
        export_background: 0.25,
        sdk_other: 0.25,
        application: 0.5,
      }),
    },
    recommendation: {
      start_from: "batch-default",
      processor: "batch",
      processor_name: "BatchSpanProcessor",
      env: { OTEL_BSP_MAX_QUEUE_SIZE: "8192" },
      summary: "Start from batch-default and apply: queue-too-small.",
      rules: [
        {
          rule: "queue-too-small",
          configuration: "batch-default",
          message: "4,004 spans were dropped because the queue was full.",
          evidence: {
            dropped_spans: 4004,
            span_rate_per_s: 1000,
            schedule_delay_s: 5,
            export_on_request_path_share: 0.6514,
            cpu_overhead_pct: interval(86.84, 41.86, 131.82),
            export_duration_s: null,
          },
          setting: { OTEL_BSP_MAX_QUEUE_SIZE: "8192" },
        },
      ],
      not_evaluated: [],
      no_telemetry: [],
    },
    ...extra,
  };
}

export function flameGraph(configuration = "batch-default"): FlameGraph {
  const leaf = (name: string, value: number, kind: string) => ({
    name,
    value,
    kind,
    children: [],
  });
  return {
    configuration,
    sampler: "go-pprof",
    samples: 100,
    problems: [],
    root: {
      name: configuration,
      value: 100,
      kind: null,
      children: [
        {
          name: "goroutine request",
          value: 60,
          kind: "request",
          children: [
            {
              name: "net/http.(*conn).serve",
              value: 50,
              kind: "application",
              children: [leaf("otlptrace.(*client).UploadTraces", 20, "export")],
            },
            leaf("sdk/trace.(*recordingSpan).End", 10, "sdk"),
          ],
        },
        {
          name: "goroutine otel-sdk",
          value: 30,
          kind: "background",
          children: [leaf("otlptrace.(*client).UploadTraces", 30, "export")],
        },
        { name: "goroutine unlabelled", value: 10, kind: "unattributed", children: [] },
      ],
    },
  };
}

/** Tempo's answer: base64 ids, nanosecond times as text, a child that starts first among two. */
export function otlpTrace(): OtlpTrace {
  const base = 1795275445457000000n;
  const at = (offsetUs: number) => String(base + BigInt(offsetUs * 1000));
  return {
    batches: [
      {
        resource: {
          attributes: [{ key: "service.name", value: { stringValue: "tracetax-demo-go" } }],
        },
        scopeSpans: [
          {
            scope: { name: "otelhttp" },
            spans: [
              {
                traceId: "AE9x+iI1HB4PHwOKGO63QQ==",
                spanId: "DPjWCsPeN9c=",
                name: "GET /work",
                kind: "SPAN_KIND_SERVER",
                startTimeUnixNano: at(0),
                endTimeUnixNano: at(1000),
              },
            ],
          },
          {
            scope: { name: "tracetax/demo-go" },
            spans: [
              {
                spanId: "7fwy/xE9mo4=",
                parentSpanId: "DPjWCsPeN9c=",
                name: "work.fetch",
                kind: "SPAN_KIND_CLIENT",
                startTimeUnixNano: at(500),
                endTimeUnixNano: at(750),
                status: { code: "STATUS_CODE_ERROR" },
              },
              {
                spanId: "PVRphhf85QU=",
                parentSpanId: "DPjWCsPeN9c=",
                name: "work.compute",
                kind: "SPAN_KIND_INTERNAL",
                startTimeUnixNano: at(100),
                endTimeUnixNano: at(300),
              },
            ],
          },
        ],
      },
    ],
  };
}

export function experimentLogs(extra: Partial<ExperimentLogs> = {}): ExperimentLogs {
  return {
    experiment_id: experiment().id,
    queries: ['{service_name="tracetax-demo-go"} | tracetax_run_id="batch-default-0"'],
    records: [
      {
        timestamp_ns: 1795275490612712700,
        line: "work done",
        configuration: "batch-default",
        round: 0,
        metadata: { severity_text: "INFO", trace_id: TRACE_ID, span_id: "5507fdd078e9ccab" },
      },
    ],
    ...extra,
  };
}

export const metaWithGrafana: Meta = {
  version: "0.1.0",
  grafana: {
    url: "http://grafana.test:3000/",
    tempo_datasource: "tempo",
    loki_datasource: "loki",
    metrics_datasource: "prometheus",
  },
};

export const metaWithoutGrafana: Meta = { version: "0.1.0", grafana: null };

// CI checks ----------------------------------------------------------------------------------

export const CHECK_ID = "12cd2d8a-894e-41d1-8f58-bf6e56014fc4";

export function checkStatus(extra: Partial<CheckStatus> = {}): CheckStatus {
  return {
    id: CHECK_ID,
    experiment_id: "9adba8b4-17f6-4830-ba20-1ba5fcc00370",
    status: "completed",
    created_at: "2026-11-21T15:25:06.615213Z",
    budget: { p99_overhead_pct: 15, cpu_overhead_pct: null, max_dropped_spans: 0 },
    strict: false,
    overall: "fail",
    verdict: {
      verdict: "fail",
      strict: false,
      lines: [
        {
          name: "p99_overhead_pct",
          budget: 15,
          measured: interval(42.41, -100, 350.72),
          summary: "+1.70 ms p99 (\u22124.00 ms to +14.0 ms), +42.4% — no significant change",
          p_adjusted: 0.31,
          verdict: "pass",
          reason: "interval lower bound -100.00% <= budget 15%",
        },
        {
          name: "max_dropped_spans",
          budget: 0,
          measured: interval(3000),
          verdict: "fail",
          reason: "3,000 dropped > budget 0",
        },
      ],
    },
    error: null,
    ...extra,
  };
}

/** The experiment a check made (names fixed to baseline / candidate), as the API stores it. */
export function checkExperiment(
  candidate: Record<string, unknown> = {},
  load: Record<string, unknown> = {},
): ExperimentDetail {
  return experiment({
    id: "9adba8b4-17f6-4830-ba20-1ba5fcc00370",
    name: "check: batch-tuned vs none",
    configurations: ["baseline", "candidate"],
    baseline: "baseline",
    spec: {
      name: "check: batch-tuned vs none",
      service: { kind: "demo", language: "go" },
      configurations: [
        { name: "baseline", processor: "none", env: {}, baseline: true, preset: "none" },
        {
          name: "candidate",
          processor: "batch",
          env: {
            OTEL_BSP_MAX_QUEUE_SIZE: "8192",
            OTEL_BSP_SCHEDULE_DELAY: "1000",
            OTEL_EXPORTER_OTLP_TIMEOUT: "500",
          },
          baseline: false,
          preset: "batch-tuned",
          ...candidate,
        },
      ],
      load: {
        rate: 100,
        warmup_s: 2,
        duration_s: 3,
        connections: 16,
        path: "/work",
        query: { iters: 1000, spans: 5 },
        max_throughput_s: 0,
        ...load,
      },
      rounds: 3,
      seed: 0,
    },
  });
}

/** A budget line the check could not decide: its interval straddles the budget. */
export function inconclusiveLine(): NonNullable<CheckStatus["verdict"]>["lines"][number] {
  return {
    name: "p50_added_ms",
    budget: 0.5,
    measured: interval(0.3, -0.1, 0.7),
    summary: "+300 µs p50 (\u2212100 µs to +700 µs), +5.1% — no significant change",
    p_adjusted: 0.21,
    verdict: "inconclusive",
    reason:
      "cannot tell: interval \u22120.1 to +0.7 straddles budget 0.5 ms; about 12 rounds would resolve it",
  };
}

// Calibrations ---------------------------------------------------------------------------------

export const CALIBRATION_ID = "5d1c7e0a-aaaa-bbbb-cccc-ddddeeeeffff";

export function calibrationStatus(extra: Partial<CalibrationStatus> = {}): CalibrationStatus {
  return {
    id: CALIBRATION_ID,
    experiment_id: "7e57ab1e-0000-1111-2222-333344445555",
    status: "completed",
    created_at: "2026-11-23T17:40:00Z",
    service: "go",
    signature: {
      service: "demo:go",
      processor: "none",
      env: {},
      inject_busy_us: 0,
      load: {
        rate: 200,
        duration_s: 10,
        connections: 16,
        path: "/work",
        query: { iters: "1000", spans: "5" },
      },
    },
    noise_floor: {
      p50: noiseFloor("p50", 2.1, 12.6),
      p90: noiseFloor("p90", 3.4, 34),
      p99: noiseFloor("p99", 8.7, 348),
      "p99.9": noiseFloor("p99.9", 19.5, 1170),
      cpu_per_request_us: noiseFloor("cpu_per_request_us", 1.8, 9),
      rss_max_bytes: noiseFloor("rss_max_bytes", 0.4, 134218),
      max_throughput_rps: noiseFloor("max_throughput_rps", null, null, {
        note: "not measured in any round that both the baseline and this configuration completed",
      }),
    },
    error: null,
    ...extra,
  };
}

// Cost ----------------------------------------------------------------------------------------

/** A mean over `rounds` rounds with its 95% interval (none from fewer than 2 rounds). */
export function figure(
  estimate: number | null,
  low: number | null = null,
  high: number | null = null,
  extra: Partial<Figure> = {},
): Figure {
  return { estimate, low, high, rounds: estimate == null ? 0 : 5, note: null, ...extra };
}

const NO_ROUND = figure(null, null, null, { note: "no round measured it" });
const ZERO = figure(0, 0, 0);

export { COST_DEFAULTS };

export const COST_SOURCES: Record<string, string> = {
  vcpu_hour_usd:
    "AWS EC2 on-demand m7i.large, us-east-1: $0.1008/h for 2 vCPUs (https://aws.amazon.com/ec2/pricing/on-demand/)",
  egress_gb_usd:
    "AWS data transfer out to the internet, first 10 TB/month, us-east-1 (https://aws.amazon.com/ec2/pricing/on-demand/#Data_Transfer)",
  traces_ingest_gb_usd: "Grafana Cloud Pro, traces per GB ingested (https://grafana.com/pricing/)",
  logs_ingest_gb_usd: "Grafana Cloud Pro, logs per GB ingested (https://grafana.com/pricing/)",
  metrics_ingest_gb_usd:
    "no per-GB list price: Grafana Cloud bills metrics per active series (https://grafana.com/pricing/); 0 unless you set yours",
  traces_storage_gb_month_usd:
    "Amazon S3 Standard, first 50 TB/month, us-east-1, where a self-hosted Tempo keeps its blocks (https://aws.amazon.com/s3/pricing/); 0 on Grafana Cloud (retention included)",
  logs_storage_gb_month_usd: "Amazon S3 Standard, as for traces (Loki's chunks)",
  metrics_storage_gb_month_usd: "Amazon S3 Standard, as for traces (Mimir's blocks)",
  retention_days:
    "a common default retention; Grafana Cloud Pro includes 30 days of traces and logs",
};

/** The baseline `none`: no extra cores, nothing sent (so no bytes per item). */
export function noneCost(): ConfigurationCost {
  return {
    configuration: "none",
    baseline: true,
    signals: (["traces", "logs", "metrics"] as const).map((signal) => ({
      signal,
      bytes_per_request: ZERO,
      bytes_per_item: NO_ROUND,
      gb_per_day: ZERO,
      store_gb_per_day: ZERO,
      store_bytes_per_item: NO_ROUND,
    })),
    components: [
      { component: "service_cores", quantity: ZERO, unit: "cores", usd_per_month: ZERO },
      { component: "collector_cores", quantity: ZERO, unit: "cores", usd_per_month: ZERO },
      { component: "network", quantity: ZERO, unit: "GB/day", usd_per_month: ZERO },
      { component: "traces_store", quantity: ZERO, unit: "GB/day", usd_per_month: ZERO },
      { component: "logs_store", quantity: ZERO, unit: "GB/day", usd_per_month: ZERO },
      { component: "metrics_store", quantity: ZERO, unit: "GB/day", usd_per_month: ZERO },
    ],
    bytes_per_request: ZERO,
    usd_per_month: ZERO,
    usd_per_month_vs_baseline: ZERO,
    usd_per_month_by_round: { 0: 0, 1: 0, 2: 0, 3: 0, 4: 0 },
  };
}

/** batch-default at 100 req/s over 5 rounds, every figure known. */
export function batchCost(): ConfigurationCost {
  const total = figure(269.57, 262.1, 277.04);
  return {
    configuration: "batch-default",
    baseline: false,
    signals: [
      {
        signal: "traces",
        bytes_per_request: figure(1450, 1412, 1488),
        bytes_per_item: figure(483.3, 470.7, 495.9),
        gb_per_day: figure(12.528, 12.2, 12.856),
        store_gb_per_day: figure(11.9, 11.6, 12.2),
        store_bytes_per_item: figure(612, 598, 626),
      },
      {
        signal: "logs",
        bytes_per_request: figure(300, 289, 311),
        bytes_per_item: figure(150, 144.5, 155.5),
        gb_per_day: figure(2.592, 2.497, 2.687),
        store_gb_per_day: figure(2.4, 2.3, 2.5),
        store_bytes_per_item: figure(232, 224, 240),
      },
      {
        signal: "metrics",
        bytes_per_request: figure(20, 19.1, 20.9),
        bytes_per_item: figure(41, 39.5, 42.5),
        gb_per_day: figure(0.1728, 0.165, 0.1806),
        store_gb_per_day: figure(0.16, 0.15, 0.17),
        store_bytes_per_item: figure(12.1, 11.8, 12.4),
      },
    ],
    components: [
      {
        component: "service_cores",
        quantity: figure(0.0045, 0.0038, 0.0052),
        unit: "cores",
        usd_per_month: figure(0.1656, 0.1398, 0.1913),
      },
      {
        component: "collector_cores",
        quantity: figure(0.002406, 0.00239, 0.00242),
        unit: "cores",
        usd_per_month: figure(0.08853, 0.08794, 0.08904),
      },
      {
        component: "network",
        quantity: figure(15.29, 14.9, 15.7),
        unit: "GB/day",
        usd_per_month: figure(41.86, 40.79, 42.98),
      },
      {
        component: "traces_store",
        quantity: figure(11.9, 11.6, 12.2),
        unit: "GB/day",
        usd_per_month: figure(189.19, 184.42, 193.96),
      },
      {
        component: "logs_store",
        quantity: figure(2.4, 2.3, 2.5),
        unit: "GB/day",
        usd_per_month: figure(38.16, 36.57, 39.75),
      },
      {
        component: "metrics_store",
        quantity: figure(0.16, 0.15, 0.17),
        unit: "GB/day",
        usd_per_month: figure(0.1104, 0.1035, 0.1173),
      },
    ],
    bytes_per_request: figure(1770, 1722, 1818),
    usd_per_month: total,
    usd_per_month_vs_baseline: total,
    usd_per_month_by_round: { 0: 262.9, 1: 268.4, 2: 270.1, 3: 275.3, 4: 271.14 },
  };
}

export function costReport(extra: Partial<CostReport> = {}): CostReport {
  const batch = batchCost();
  return {
    subject: "service",
    experiment_id: experiment().id,
    baseline: "none",
    inputs: COST_DEFAULTS,
    sources: COST_SOURCES,
    collector: {
      cores_per_10k_spans_s: 0.0802,
      source:
        "documented: 0.0802 cores per 10k spans/s, the pipeline lab's passthrough variant in make bench-collector (docs/benchmarks.md, 2026-11-24); name a pipeline experiment to use a measured pipeline instead",
      measured: false,
    },
    volume_source:
      "the Collector's own telemetry (level detailed): request body bytes at its OTLP receiver by HTTP route and gRPC service, items accepted by the receiver, bytes enqueued by the exporter to each store",
    configurations: [noneCost(), batch],
    recommended: {
      configuration: "batch-default",
      usd_per_month: batch.usd_per_month,
      vs_baseline: batch.usd_per_month_vs_baseline,
      summary:
        "batch-default costs $269.57 (95% interval $262.10 to $277.04) a month at 100 req/s: $269.57 (95% interval $262.10 to $277.04) more than the baseline none",
    },
    note: null,
    ...extra,
  };
}
