import { describe, expect, it } from "vitest";
import type { ProgressEvent } from "../../api/types";
import {
  ALL_SIDE_BY_SIDE,
  describePosition,
  nextReading,
  overallFraction,
  phaseFraction,
  phaseLabel,
  project,
} from "./progress";

const running: ProgressEvent = {
  experiment_id: "x",
  status: "running",
  phase: "warmup",
  configuration: "batch-default",
  round: 0,
  rounds: 1,
  slot: 1,
  slots: 2,
  elapsed_s: 15,
  remaining_s: 5,
  phase_elapsed_s: 0.5,
  phase_duration_s: 1,
};

describe("live progress", () => {
  it("says every configuration runs at once in a round's side-by-side phase", () => {
    const together = { ...running, configuration: null, slot: 0 };
    expect(describePosition({ ...together, phase: "side-by-side" })).toBe(
      `${ALL_SIDE_BY_SIDE} · round 1 of 1 · run 1 of 2`,
    );
    expect(describePosition({ ...together, phase: "warmup" })).toMatch(/^all configurations/);
    expect(describePosition({ ...together, phase: "starting" })).toMatch(/^all configurations/);
    // Outside a round (queued, aggregating) no configuration is no one.
    expect(describePosition({ ...together, phase: "aggregating", round: null })).toBe("");
    expect(phaseLabel("side-by-side")).toBe("Measuring side by side");
    expect(
      nextReading(null, { ...together, phase: "side-by-side", current_rps: 200 }),
    ).toMatchObject({
      configuration: ALL_SIDE_BY_SIDE,
    });
  });

  it("measures the whole run by elapsed and remaining time", () => {
    expect(overallFraction(running)).toBe(0.75);
    expect(overallFraction({ ...running, remaining_s: null })).toBe(0.5);
    expect(overallFraction({ ...running, phase: "queued" })).toBe(0);
    expect(overallFraction({ ...running, phase: "finished" })).toBe(1);
  });

  it("measures the phase when its length is known", () => {
    expect(phaseFraction(running)).toBe(0.5);
    expect(phaseFraction({ ...running, phase_elapsed_s: 3 })).toBe(1);
    expect(phaseFraction({ ...running, phase_duration_s: null })).toBeNull();
  });

  it("says where the run stands, counting from one", () => {
    expect(describePosition(running)).toBe("batch-default · round 1 of 1 · run 2 of 2");
    expect(
      describePosition({ ...running, phase: "finished", configuration: null, round: null }),
    ).toBe("");
    expect(phaseLabel("max-throughput")).toBe("Finding the maximum throughput");
    expect(phaseLabel("something-new")).toBe("something-new");
  });

  it("names a pipeline's phases: its Collectors start and stop, then it drains", () => {
    expect(phaseLabel("draining")).toBe("Draining the pipeline");
    expect(phaseLabel("draining", true)).toBe("Draining the pipeline");
    expect(phaseLabel("starting", true)).toBe("Starting the Collectors");
    expect(phaseLabel("starting")).toBe("Starting the service");
    // The drain has a known length: its clock runs on between events.
    const drain = project({ ...running, phase: "draining", phase_duration_s: 6 }, 2);
    expect(drain).toMatchObject({ elapsed_s: 17, phase_elapsed_s: 2.5 });
  });
});

describe("the latest reading", () => {
  it("keeps the warm-up's rate and p99 while the measured phase reports none", () => {
    const warm = nextReading(null, { ...running, current_rps: 99, current_p99_us: 4100 });
    expect(warm).toEqual({
      rps: 99,
      p99_us: 4100,
      cpu: null,
      phase: "warmup",
      configuration: "batch-default",
    });
    expect(nextReading(warm, { ...running, phase: "measuring" })).toBe(warm);
    const cpu = nextReading(warm, { ...running, phase: "measuring", service_cpu_utilization: 0.5 });
    expect(cpu).toMatchObject({ rps: 99, p99_us: 4100, cpu: 0.5, phase: "measuring" });
    expect(nextReading(null, running)).toBeNull();
  });
});

describe("between events", () => {
  it("runs the clocks on, within the phase and the estimate", () => {
    const later = project({ ...running, phase: "measuring", phase_duration_s: 3 }, 2);
    expect(later).toMatchObject({ elapsed_s: 17, remaining_s: 3, phase_elapsed_s: 2.5 });
    const much = project({ ...running, phase: "measuring", phase_duration_s: 3 }, 60);
    expect(much).toMatchObject({ remaining_s: 0, phase_elapsed_s: 3 });
  });

  it("leaves waiting and finished states alone", () => {
    const queued: ProgressEvent = { experiment_id: "x", status: "queued", phase: "queued" };
    expect(project(queued, 5)).toBe(queued);
    expect(project(running, 0)).toBe(running);
  });
});
