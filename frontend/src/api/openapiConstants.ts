// Generated from openapi.json by scripts/gen-constants.mjs (npm run gen:api): do not edit.
// Each schema's field defaults and enum values, as the backend publishes them.

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
    "inject_busy_us": 0
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
  "FlameNode": {
    "children": []
  },
  "LoadSpec": {
    "warmup_s": 5,
    "duration_s": 20,
    "connections": 16,
    "path": "/work",
    "method": "GET",
    "max_throughput_s": 10,
    "stacks_s": 5
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
  "RoundVolume": {
    "source": "sent: request body bytes at the Collector's OTLP HTTP receiver by route (its own telemetry, level detailed); items: accepted by its receiver; exported: bytes its exporter to each store enqueued; stored: Tempo's and Loki's distributor bytes received, Mimir's uncompressed OTLP request bytes and the run's samples"
  },
  "SpanLoadSpec": {
    "warmup_s": 2,
    "duration_s": 20,
    "drain_s": 6,
    "spans_per_trace": 5,
    "attribute_bytes": 0,
    "services_per_trace": 1
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
  "HealthReport": {
    "status": [
      "ok",
      "degraded"
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
