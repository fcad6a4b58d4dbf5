import { describe, expect, it } from "vitest";
import type { ThreadGroupFigures } from "../../api/types";
import { aggregates } from "../../test/fixtures";
import { hasPerSpanFigures, isBatchWorker, threadGroupRows, threadTables } from "./threadGroups";

function group(extra: Partial<ThreadGroupFigures> = {}): ThreadGroupFigures {
  return {
    threads: 1,
    rounds: 3,
    cpu_per_request_us: 10,
    ctx_per_request: 1,
    cpu_per_span_us: null,
    ctx_per_span: null,
    ...extra,
  };
}

// A Java demo's configuration as aggregate.py `thread_groups` gives it: most CPU first.
const javaGroups = {
  "http-worker-*": group({
    threads: 64,
    cpu_per_request_us: 412.5,
    ctx_per_request: 2.31,
    cpu_per_span_us: 82.5,
    ctx_per_span: 0.462,
  }),
  "OkHttp TaskRunn": group({ cpu_per_request_us: 30.1, ctx_per_request: 0.8 }),
  BatchSpanProces: group({
    cpu_per_request_us: 21.4,
    ctx_per_request: 1.2,
    cpu_per_span_us: 4.28,
    ctx_per_span: 0.24,
  }),
  "GC Thread#*": group({ threads: 2, cpu_per_request_us: 0, ctx_per_request: null }),
};

describe("the threads tables", () => {
  it("knows the batch span processor's worker by its kernel names", () => {
    expect(isBatchWorker("BatchSpanProces")).toBe(true); // Java: BatchSpanProcessor_WorkerThread-1
    expect(isBatchWorker("OtelBatchSpanRe")).toBe(true); // Python: OtelBatchSpanRecordProcessor
    expect(isBatchWorker("http-worker-*")).toBe(false);
  });

  it("puts the batch worker first, then the API's order, with each figure formatted", () => {
    const rows = threadGroupRows(javaGroups);
    expect(rows.map((row) => [row.group, row.batchWorker])).toEqual([
      ["BatchSpanProces", true],
      ["http-worker-*", false],
      ["OkHttp TaskRunn", false],
      ["GC Thread#*", false],
    ]);
    expect(rows[0]).toEqual({
      group: "BatchSpanProces",
      batchWorker: true,
      threads: "1",
      rounds: 3,
      cpuPerRequest: "21.4",
      ctxPerRequest: "1.20",
      cpuPerSpan: "4.28",
      ctxPerSpan: "0.240",
    });
    expect(rows[1]).toMatchObject({ threads: "64", cpuPerRequest: "413", ctxPerSpan: "0.462" });
  });

  it("says unknown for a figure not measured, never 0, and keeps a measured 0", () => {
    const [, , okhttp, gc] = threadGroupRows(javaGroups);
    expect([okhttp.cpuPerSpan, okhttp.ctxPerSpan]).toEqual(["unknown", "unknown"]);
    expect([gc.cpuPerRequest, gc.ctxPerRequest]).toEqual(["0", "unknown"]);
    expect(threadGroupRows(undefined)).toEqual([]);
  });

  it("has a table per configuration in the spec's order, with the concurrency it ran with", () => {
    const configurations = [
      aggregates("threads-64", 1, { thread_groups: javaGroups }),
      aggregates("none", 1, { thread_groups: { "http-worker-*": group({ threads: 8 }) } }),
      aggregates("old", 1),
    ];
    const tables = threadTables(configurations, ["none", "threads-64", "old"], {
      none: "threads 8",
      "threads-64": "threads 64, cores 2",
    });
    expect(tables.map((t) => [t.configuration, t.concurrency, t.rows.length])).toEqual([
      ["none", "threads 8", 1],
      ["threads-64", "threads 64, cores 2", 4],
      ["old", "", 0],
    ]);
    expect(hasPerSpanFigures(configurations)).toBe(true);
    expect(hasPerSpanFigures(configurations.slice(1))).toBe(false);
  });
});
