// Small, realistic API payloads (shapes as the backend returns them).

import type {
  CheckStatus,
  ConfigurationAggregates,
  Diagnostics,
  ExperimentDetail,
  ExperimentLogs,
  ExperimentResults,
  FlameGraph,
  Interval,
  Meta,
  OtlpTrace,
  Preset,
  ResourceSample,
  RoundLedger,
  RoundRaw,
  ServiceInfo,
  SignalLedger,
  StackSummary,
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

// Diagnostics ---------------------------------------------------------------------------------

export function interval(
  estimate: number | null,
  low: number | null = null,
  high: number | null = null,
  extra: Partial<Interval> = {},
): Interval {
  const significant = low != null && high != null && (low > 0 || high < 0);
  return { estimate, low, high, significant, note: null, ...extra };
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
    experiment_id: experiment().id,
    baseline: "none",
    overhead: {
      "batch-default": {
        p50: interval(50, 41.5, 58.25),
        p90: interval(40, -28.8, 110.3),
        p99: interval(50, -100, 435.6),
        "p99.9": interval(-21.7, -100, 203.9),
        max_throughput_rps: interval(33.3, 30, 36.7),
        cpu_per_request_us: interval(50, null, null, {
          note: "an interval needs at least 2 rounds",
        }),
        rss_max_bytes: interval(-12, -14, -10),
      },
    },
    noise_floor: {
      p50: interval(0, -6.4, 6.4),
      p90: interval(0, -54.5, 54.5),
      p99: interval(0, -100, 387.5),
      "p99.9": interval(0, -100, 283.4),
      max_throughput_rps: interval(0, null, null, { note: "an interval needs at least 2 rounds" }),
      cpu_per_request_us: interval(0, -31, 31),
      rss_max_bytes: interval(0, -0.9, 0.9),
    },
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
        timestamp_ns: 1795275490612712713,
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
    verdict: {
      verdict: "fail",
      strict: false,
      lines: [
        {
          name: "p99_overhead_pct",
          budget: 15,
          measured: interval(42.41, -100, 350.72),
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
