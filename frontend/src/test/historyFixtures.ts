// A configuration's history as GET /api/v1/history returns it: 12 checks of go's batch-default
// on main, the injected cost stepping up at the 7th commit (one change point there), and what
// GET /api/v1/history/services/go summarises of it.

import type { HistoryPoint, HistorySeries, ServiceHistory } from "../api/types";

export const HISTORY_SERVICE = "go";
export const HISTORY_CONFIGURATION = "batch-default";

/** Commit i's sha: "c0mmit07…" style, 40 hex characters. */
export function commitSha(i: number): string {
  return `${i.toString(16).padStart(2, "0")}${"a1b2c3d4e5".repeat(4)}`.slice(0, 40);
}

export function historyPoint(i: number, extra: Partial<HistoryPoint> = {}): HistoryPoint {
  const estimate = i < 6 ? 4 + (i % 3) * 0.2 : 19 + (i % 3) * 0.2;
  return {
    check_id: `check-${String(i).padStart(2, "0")}-0000-0000-0000-000000000000`,
    experiment_id: `exp-${String(i).padStart(2, "0")}`,
    created_at: `2026-11-${String(10 + i).padStart(2, "0")}T12:00:00Z`,
    commit: commitSha(i),
    branch: "main",
    pull_request: null,
    ci_run_url: `https://github.com/acme/shop/actions/runs/${1000 + i}`,
    repository: "acme/shop",
    machine: "m-3f9a",
    verdict: estimate > 15 ? "fail" : "pass",
    estimate,
    low: estimate - 1.5,
    high: estimate + 1.5,
    ...extra,
  } as HistoryPoint;
}

export function historySeries(metric = "p99", extra: Partial<HistorySeries> = {}): HistorySeries {
  const points = Array.from({ length: 12 }, (_, i) => historyPoint(i));
  return {
    service: HISTORY_SERVICE,
    configuration: HISTORY_CONFIGURATION,
    metric,
    unit: metric === "bytes_per_request" ? "bytes" : metric === "usd_per_month" ? "usd" : "pct",
    branch: "main",
    machine: null,
    budget: metric === "p99" ? 15 : null,
    points,
    change_points: [
      {
        index: 6,
        check_id: points[6].check_id,
        commit: points[6].commit,
        before: 4.2,
        after: 19.2,
        shift: 15,
        low: 13.4,
        high: 16.6,
        size_pct: 15,
        material: true,
      },
    ],
    note: null,
    material_pct: 1,
    ...extra,
  } as HistorySeries;
}

export function serviceHistory(): ServiceHistory {
  const latest = historyPoint(11);
  return {
    service: HISTORY_SERVICE,
    configurations: [
      {
        configuration: HISTORY_CONFIGURATION,
        checks: 12,
        latest: {
          p99: latest,
          cpu_per_request_us: historyPoint(11, { estimate: 7.5, low: 6, high: 9, verdict: "pass" }),
        },
        trend: { p99: [4, 4.2, 4.4, 19, 19.2, 19.4], cpu_per_request_us: [7, 7.1, 7.5] },
        change_points: { p99: 1, cpu_per_request_us: 0 },
      },
      {
        configuration: "batch-tuned",
        checks: 1,
        latest: {
          p99: historyPoint(0, {
            commit: null,
            estimate: null,
            low: null,
            high: null,
            verdict: "error",
          }),
        },
        trend: { p99: [] },
        change_points: { p99: 0 },
      },
    ],
  } as unknown as ServiceHistory;
}
