// Tuning runs as the API returns them (api/schemas/tunings.py; a report as tuning/search.py
// builds it, an unknown figure null).

import type { TuningDetail, TuningOutcome, TuningReport, TuningSummary } from "../api/types";

export const TUNING_ID = "7a11e5d0-1111-2222-3333-444455556666";
export const PROBE_ID = "90be0000-aaaa-bbbb-cccc-000000000001";
export const RUNG1_ID = "5e1ec700-aaaa-bbbb-cccc-000000000002";
export const RUNG2_ID = "5e1ec700-aaaa-bbbb-cccc-000000000003";
export const CONFIRMATION_ID = "c0ff1e00-aaaa-bbbb-cccc-000000000004";

export function outcome(name: string, changes: Partial<TuningOutcome> = {}): TuningOutcome {
  return {
    name,
    p99_overhead_pct: 5,
    cpu_overhead_pct: 10,
    kept: 1,
    lost_spans: 0,
    rss_mib: 40,
    sampled: false,
    ...changes,
  };
}

/** Fast and lossy: on the front (least overhead), over the lost-spans budget. */
export const fast = outcome("q512-b64-d200", {
  p99_overhead_pct: 3.5,
  cpu_overhead_pct: 11,
  kept: 0.98,
  lost_spans: 80,
  rss_mib: 42,
});
/** Keeps every span: on the front, meets every budget, recommended. */
export const keeper = outcome("q1024-b256-d1000", {
  p99_overhead_pct: 5.2,
  cpu_overhead_pct: 8.5,
  kept: 1,
  lost_spans: 0,
  rss_mib: 45.3,
});
/** Dropped after the first rung; its p99, CPU, drops and memory not measured. */
export const unmeasured = outcome("q4096-b1024-d5000", {
  p99_overhead_pct: null,
  cpu_overhead_pct: null,
  kept: 0.9,
  lost_spans: null,
  rss_mib: null,
});

export const PASTE = {
  env: "OTEL_BSP_MAX_QUEUE_SIZE=1024\nOTEL_BSP_MAX_EXPORT_BATCH_SIZE=256\nOTEL_BSP_SCHEDULE_DELAY=1000\nOTEL_BSP_EXPORT_TIMEOUT=1000\n",
  java: "-Dotel.bsp.max.queue.size=1024 -Dotel.bsp.max.export.batch.size=256 -Dotel.bsp.schedule.delay=1000 -Dotel.bsp.export.timeout=1000",
  kubernetes:
    "env:\n- name: OTEL_BSP_MAX_QUEUE_SIZE\n  value: '1024'\n- name: OTEL_BSP_MAX_EXPORT_BATCH_SIZE\n  value: '256'\n- name: OTEL_BSP_SCHEDULE_DELAY\n  value: '1000'\n- name: OTEL_BSP_EXPORT_TIMEOUT\n  value: '1000'\n",
};

export const VERDICT =
  "better than the SDK defaults: p99 overhead +5.0% against +9.8%, spans lost in the SDK 0 against 412";

export function tuningReport(changes: Partial<TuningReport> = {}): TuningReport {
  return {
    measured: { mean_spans_per_s: 1000, peak_spans_per_s: 5000, export_p99_ms: 37 },
    export_measured: true,
    rungs: [
      {
        experiment_id: RUNG1_ID,
        measure_s: 6,
        outcomes: [
          { ...fast, p99_overhead_pct: 4.1, kept: 0.97, lost_spans: 120 },
          { ...keeper, p99_overhead_pct: 6 },
          unmeasured,
        ],
      },
      { experiment_id: RUNG2_ID, measure_s: 12, outcomes: [fast, keeper] },
    ],
    choice: { recommended: keeper, out_of_reach: {}, closest: null },
    front: [fast, keeper],
    recommended_env: {
      OTEL_BSP_MAX_QUEUE_SIZE: "1024",
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "256",
      OTEL_BSP_SCHEDULE_DELAY: "1000",
      OTEL_BSP_EXPORT_TIMEOUT: "1000",
    },
    paste: PASTE,
    confirmation_id: CONFIRMATION_ID,
    verdict: VERDICT,
    ...changes,
  };
}

/** Nothing met the budgets: the p99 budget is out of reach, the closest setting named. */
export function outOfReachReport(): TuningReport {
  return tuningReport({
    choice: {
      recommended: null,
      out_of_reach: {
        p99_overhead_pct: "no setting met it; closest q512-b64-d200, over by 1.5",
      },
      closest: fast,
    },
    recommended_env: null,
    paste: null,
    confirmation_id: null,
    verdict: null,
  });
}

export const tuningSpec = {
  name: null,
  service: { kind: "demo", language: "go" },
  processor: "batch",
  load: {
    rate: 200,
    warmup_s: 5,
    duration_s: 20,
    connections: 16,
    burst: { start_s: 5, duration_s: 3, multiplier: 5 },
  },
  budgets: { p99_overhead_pct: 6, cpu_overhead_pct: 20, max_lost_spans: 0 },
  rounds: 3,
  confirm_rounds: 5,
  wall_time_s: 1200,
};

/** A p99 budget no candidate meets (outOfReachReport). */
export const tightSpec = {
  ...tuningSpec,
  budgets: { p99_overhead_pct: 2, cpu_overhead_pct: 20, max_lost_spans: 0 },
};

export function tuningSummary(changes: Partial<TuningSummary> = {}): TuningSummary {
  return {
    id: TUNING_ID,
    name: "go at 200 req/s",
    status: "completed",
    progress: "finished",
    error: null,
    experiment_ids: [PROBE_ID, RUNG1_ID, RUNG2_ID, CONFIRMATION_ID],
    created_at: "2025-03-01T10:00:00",
    finished_at: "2025-03-01T10:19:30",
    ...changes,
  };
}

export function tuningDetail(changes: Partial<TuningDetail> = {}): TuningDetail {
  return { ...tuningSummary(), spec: tuningSpec, report: tuningReport(), ...changes };
}
