// Generated from openapi.json by scripts/gen-constants.mjs (npm run gen:api): do not edit.
// Each schema's field defaults, enum values and `x-*` constants, as the backend publishes them.

/** Field defaults by schema (a default of null is left out: it means "not set"). */
export const OPENAPI_DEFAULTS = {
  "CalibrationRequest": {
    "rounds": 5,
    "seed": 0
  },
  "Change": {
    "significant": false,
    "direction": "unknown"
  },
  "CheckRequest": {
    "subject": "service",
    "rounds": 5,
    "seed": 0,
    "sample_stacks": false,
    "strict": false
  },
  "CommandServiceRef": {
    "health_path": "/healthz",
    "service_name": "tracetax-user-service",
    "language": "other",
    "startup_timeout_s": 60
  },
  "ComponentHealth": {
    "detail": ""
  },
  "ConfigurationSpec": {
    "baseline": false,
    "inject_busy_us": 0,
    "inject_background_us": 0,
    "inject_background_period_ms": 2000
  },
  "CostInputs": {
    "requests_per_s": 100,
    "vcpu_hour_usd": 0.0504,
    "egress_gb_usd": 0.09,
    "traces_ingest_gb_usd": 0.5,
    "logs_ingest_gb_usd": 0.5,
    "metrics_ingest_gb_usd": 0,
    "traces_storage_gb_month_usd": 0.023,
    "logs_storage_gb_month_usd": 0.023,
    "metrics_storage_gb_month_usd": 0.023,
    "retention_days": 30
  },
  "CostReport": {
    "subject": "service"
  },
  "DemoServiceRef": {
    "kind": "demo"
  },
  "Diagnostics": {
    "subject": "service",
    "stack_down_rounds": []
  },
  "ExperimentSpec": {
    "subject": "service",
    "rounds": 5,
    "seed": 0,
    "sample_stacks": true
  },
  "Figure": {
    "rounds": 0
  },
  "FlameDiffNode": {
    "children": []
  },
  "FlameNode": {
    "children": []
  },
  "HistoryGate": {
    "points": 10,
    "max_growth_pct": 5
  },
  "LoadSpec": {
    "warmup_s": 5,
    "duration_s": 15,
    "connections": 16,
    "path": "/work",
    "method": "GET",
    "max_throughput_s": 5,
    "stacks_s": 5,
    "side_by_side_instances": 1
  },
  "PipelineCheckRequest": {
    "rounds": 5,
    "seed": 0,
    "strict": false
  },
  "PipelineDiagnostics": {
    "subject": "collector",
    "stack_down_rounds": []
  },
  "PipelineSpec": {
    "rounds": 5,
    "seed": 0
  },
  "Preset": {
    "baseline": false
  },
  "RampSpec": {
    "factor": 1.5,
    "step_s": 3,
    "max_spans_per_s": 200000,
    "max_steps": 12
  },
  "Readiness": {
    "detail": ""
  },
  "Recommendation": {
    "not_evaluated": [],
    "no_telemetry": []
  },
  "RoundVolume": {
    "source": "sent: request body bytes at the Collector's OTLP HTTP receiver by route (its own telemetry, level detailed); items: accepted by its receiver; exported: bytes its exporter to each store enqueued; stored: Tempo's and Loki's distributor bytes received, Mimir's uncompressed OTLP request bytes (each store's own /metrics at the round's start and end) and the run's samples"
  },
  "SpanLoadSpec": {
    "warmup_s": 2,
    "duration_s": 20,
    "drain_s": 6,
    "spans_per_trace": 5,
    "attribute_bytes": 0,
    "services_per_trace": 1
  },
  "SpecEstimate": {
    "ramp_steps": 0
  },
  "TuningBudgets": {
    "max_lost_spans": 0
  },
  "TuningOutcome": {
    "sampled": false
  },
  "TuningReportModel": {
    "export_measured": false
  },
  "TuningSpec": {
    "processor": "batch",
    "rounds": 3,
    "confirm_rounds": 5
  },
  "VariantSpec": {
    "name": "",
    "baseline": false
  },
  "WeightedPath": {
    "weight": 1
  }
} as const;

/** Enum values by schema and field, in the backend's order. */
export const OPENAPI_ENUMS = {
  "BudgetLine": {
    "verdict": [
      "pass",
      "fail",
      "inconclusive",
      "unknown"
    ]
  },
  "Change": {
    "direction": [
      "worse",
      "better",
      "unchanged",
      "unknown"
    ]
  },
  "CheckStatus": {
    "overall": [
      "pass",
      "fail",
      "error"
    ]
  },
  "CommandServiceRef": {
    "language": [
      "python",
      "java",
      "node",
      "go",
      "other"
    ]
  },
  "ComponentCost": {
    "component": [
      "service_cores",
      "collector_cores",
      "network",
      "traces_store",
      "logs_store",
      "metrics_store"
    ],
    "unit": [
      "cores",
      "GB/day"
    ]
  },
  "ConfigurationSpec": {
    "processor": [
      "none",
      "simple",
      "batch",
      "agent",
      "ebpf"
    ]
  },
  "FlameDiff": {
    "unit": [
      "us_per_request",
      "share_pct"
    ]
  },
  "HealthAnswer": {
    "status": [
      "ok",
      "degraded"
    ]
  },
  "HistoryJudgementModel": {
    "verdict": [
      "pass",
      "fail",
      "inconclusive",
      "no_history"
    ]
  },
  "HistoryPoint": {
    "verdict": [
      "pass",
      "fail",
      "error"
    ]
  },
  "HistorySeries": {
    "unit": [
      "pct",
      "bytes",
      "usd",
      "spans"
    ]
  },
  "Readiness": {
    "status": [
      "ready",
      "not ready"
    ]
  },
  "SignalCost": {
    "signal": [
      "traces",
      "logs",
      "metrics"
    ]
  },
  "SignalLedger": {
    "signal": [
      "spans",
      "log_records",
      "request_counter"
    ]
  },
  "SignalVolume": {
    "signal": [
      "traces",
      "logs",
      "metrics"
    ]
  },
  "TuningSpec": {
    "processor": [
      "batch",
      "agent"
    ]
  },
  "Verdict": {
    "verdict": [
      "pass",
      "fail",
      "error"
    ]
  }
} as const;

/** The constants each schema publishes as `x-*` extensions, by schema and extension. */
export const OPENAPI_EXTENSIONS = {
  "Budget": {
    "x-budget-lines": {
      "collector": [
        {
          "field": "Max cores per 10k spans/s overhead (%)",
          "flag": "--cores-per-10k-overhead-pct",
          "key": "cores_per_10k_overhead_pct",
          "label": "Collector cores per 10k spans/s overhead",
          "unit": "pct"
        },
        {
          "field": "Max cores per 10k spans/s added (cores)",
          "flag": "--cores-per-10k-added",
          "key": "cores_per_10k_added",
          "label": "Collector cores per 10k spans/s added",
          "unit": "cores"
        },
        {
          "field": "Max peak RSS overhead (%)",
          "flag": "--rss-overhead-pct",
          "key": "rss_overhead_pct",
          "label": "Collector peak RSS overhead",
          "unit": "pct"
        },
        {
          "field": "Max peak RSS added (MiB)",
          "flag": "--rss-added-mib",
          "key": "rss_added_mib",
          "label": "Collector peak RSS added",
          "unit": "mib"
        },
        {
          "field": "Max lost spans",
          "flag": "--max-lost-spans",
          "key": "max_lost_spans",
          "label": "Spans lost in the pipeline",
          "unit": "spans"
        }
      ],
      "service": [
        {
          "field": "Max p50 overhead (%)",
          "flag": "--p50-overhead-pct",
          "key": "p50_overhead_pct",
          "label": "p50 latency overhead",
          "unit": "pct"
        },
        {
          "field": "Max p99 overhead (%)",
          "flag": "--p99-overhead-pct",
          "key": "p99_overhead_pct",
          "label": "p99 latency overhead",
          "unit": "pct"
        },
        {
          "field": "Max CPU per request overhead (%)",
          "flag": "--cpu-overhead-pct",
          "key": "cpu_overhead_pct",
          "label": "CPU per request overhead",
          "unit": "pct"
        },
        {
          "field": "Max p50 added (ms)",
          "flag": "--p50-added-ms",
          "key": "p50_added_ms",
          "label": "p50 latency added",
          "unit": "ms"
        },
        {
          "field": "Max p99 added (ms)",
          "flag": "--p99-added-ms",
          "key": "p99_added_ms",
          "label": "p99 latency added",
          "unit": "ms"
        },
        {
          "field": "Max CPU per request added (µs)",
          "flag": "--cpu-added-us",
          "key": "cpu_added_us",
          "label": "CPU per request added",
          "unit": "us"
        },
        {
          "field": "Max dropped spans",
          "flag": "--max-dropped-spans",
          "key": "max_dropped_spans",
          "label": "Spans dropped in the SDK",
          "unit": "spans"
        },
        {
          "field": "Max bytes per request",
          "flag": "--max-bytes-per-request",
          "key": "max_bytes_per_request",
          "label": "OTLP bytes per request",
          "unit": "bytes"
        },
        {
          "field": "Max $/month",
          "flag": "--max-usd-per-month",
          "key": "max_usd_per_month",
          "label": "Cost per month",
          "unit": "usd"
        }
      ]
    }
  },
  "Change": {
    "x-direction-words": {
      "better": "better",
      "unchanged": "no significant change",
      "unknown": "unknown",
      "worse": "worse"
    }
  },
  "CheckRequest": {
    "x-cli-load": {
      "max_throughput_s": 0,
      "warmup_s": 2
    }
  },
  "CommandServiceRef": {
    "x-agent-languages": [
      "python",
      "java",
      "node"
    ]
  },
  "ConfigurationSpec": {
    "x-otel-suggestions": [
      "OTEL_BSP_MAX_QUEUE_SIZE",
      "OTEL_BSP_MAX_EXPORT_BATCH_SIZE",
      "OTEL_BSP_SCHEDULE_DELAY",
      "OTEL_BSP_EXPORT_TIMEOUT",
      "OTEL_BLRP_MAX_QUEUE_SIZE",
      "OTEL_BLRP_MAX_EXPORT_BATCH_SIZE",
      "OTEL_BLRP_SCHEDULE_DELAY",
      "OTEL_TRACES_SAMPLER",
      "OTEL_TRACES_SAMPLER_ARG",
      "OTEL_EXPORTER_OTLP_PROTOCOL",
      "OTEL_EXPORTER_OTLP_COMPRESSION",
      "OTEL_EXPORTER_OTLP_TIMEOUT",
      "OTEL_METRIC_EXPORT_INTERVAL",
      "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT",
      "OTEL_SPAN_EVENT_COUNT_LIMIT"
    ]
  },
  "ExperimentSpec": {
    "x-estimate": {
      "settle_s": 2.5,
      "side_by_side_default_max_s": 10,
      "startup_s": 3,
      "stop_s": 2
    }
  },
  "LoadSpec": {
    "x-bodyless-methods": [
      "GET",
      "HEAD"
    ],
    "x-http-methods": [
      "GET",
      "HEAD",
      "POST",
      "PUT",
      "PATCH",
      "DELETE",
      "OPTIONS"
    ]
  },
  "PipelineCheckRequest": {
    "x-cli-load": {
      "warmup_s": 2
    }
  },
  "PipelineSpec": {
    "x-estimate": {
      "ramp_step_overhead_s": 1.5,
      "side_by_side_default_max_s": 10,
      "startup_s": 2,
      "stop_s": 2
    }
  }
} as const;
