import { describe, expect, it } from "vitest";
import { round } from "../../test/fixtures";
import {
  isFlagged,
  isolationRecords,
  limiter,
  limiterText,
  shutdownRecord,
  throughputLimits,
} from "./rounds";

const flaggedOpen = {
  flagged: true,
  reasons: [
    "other processes used 1.20s of CPU on the service's cores (6.0% of the phase per core; the limit is 2%): stress (pid 4242, 1.18s)",
  ],
  foreign_cpu_s: 1.2,
  foreign_cpu_share: 0.06,
  service_run_delay_ms: 812.5,
  foreign_tasks: [{ pid: 4242, comm: "stress", cpu_s: 1.18, kernel_thread: false }],
};
const clean = { flagged: false, reasons: [], foreign_cpu_s: 0.01, foreign_tasks: [] };

describe("a round's isolation record", () => {
  it("reads {phase: record} from the round or from its resources", () => {
    const top = round("batch", 1, { isolation: { open: flaggedOpen, closed: clean } });
    expect(isolationRecords(top).map((r) => [r.phase, r.flagged])).toEqual([
      ["open", true],
      ["closed", false],
    ]);
    expect(isolationRecords(top)[0].foreign_tasks).toEqual([
      { pid: 4242, comm: "stress", cpu_s: 1.18, kernel: false, exited: false },
    ]);
    expect(isolationRecords(top)[0].foreign_explanation).toBeNull();
    const nested = round("batch", 1, { resources: { isolation: { open: flaggedOpen } } });
    expect(isFlagged(nested)).toBe(true);
  });

  it("reads a single record too, and nothing from rounds without one", () => {
    const single = round("batch", 0, { isolation: flaggedOpen });
    expect(isolationRecords(single)).toHaveLength(1);
    expect(isolationRecords(single)[0].phase).toBeNull();
    expect(isolationRecords(round("none", 0))).toEqual([]);
    expect(isFlagged(round("none", 0, { isolation: { open: clean } }))).toBe(false);
  });
});

describe("shutdown and limiter", () => {
  it("reads how the service ended after SIGTERM", () => {
    const note =
      "terminated by SIGTERM's default action (no signal handler): the SDK had no chance to flush";
    expect(
      shutdownRecord(
        round("batch", 0, { shutdown: { exit_code: -15, clean: false, flushed: false, note } }),
      ),
    ).toEqual({ exit_code: -15, clean: false, flushed: false, note });
    expect(shutdownRecord(round("batch", 0))).toBeNull();
  });

  it("reads limited_by from the round or its closed phase, with the reason", () => {
    expect(limiter(round("batch", 0, { limited_by: "load generator" }))).toEqual({
      by: "load generator",
      reason: null,
    });
    expect(
      limiter(
        round("batch", 0, {
          closed_phase: {
            limited_by: "stack",
            limited_by_reason: "the stack's cores were 95% busy",
          },
        }),
      ),
    ).toEqual({ by: "stack", reason: "the stack's cores were 95% busy" });
    expect(limiter(round("batch", 0))).toBeNull();
    expect(limiterText("none")).toBe("limited by: no saturated core");
  });

  it("says per configuration what limited the throughput when it was not the service", () => {
    const rounds = [
      round("none", 0, { limited_by: "service" }),
      round("none", 1, { limited_by: "service" }),
      round("batch", 0, { limited_by: "load generator" }),
      round("batch", 1, { limited_by: "load generator" }),
      round("simple", 0, { limited_by: "service" }),
      round("simple", 1, { limited_by: "stack" }),
      round("simple", 2, { limited_by: "stack", status: "failed" }),
    ];
    expect(throughputLimits(rounds)).toEqual({
      none: null,
      batch: "load generator",
      simple: "stack in 1 of 2 rounds",
    });
  });
});

describe("a flagged round's explanation", () => {
  it("keeps the backend's sentence and which listed tasks exited", () => {
    const explained = round("batch", 0, {
      isolation: {
        open: {
          ...flaggedOpen,
          foreign_explanation: "0.08s by the processes listed; 0.25s by no task seen",
          foreign_tasks: [{ pid: 7, comm: "sh", cpu_s: 0.05, kernel_thread: false, exited: true }],
        },
      },
    });
    const [record] = isolationRecords(explained);
    expect(record.foreign_explanation).toBe("0.08s by the processes listed; 0.25s by no task seen");
    expect(record.foreign_tasks[0].exited).toBe(true);
  });
});
