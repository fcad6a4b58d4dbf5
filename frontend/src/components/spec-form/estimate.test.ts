import { describe, expect, it } from "vitest";
import { presets, services } from "../../test/fixtures";
import { estimatedSeconds, estimateForm } from "./estimate";
import { initialForm } from "./form";

describe("the estimate", () => {
  it("matches ExperimentSpec.estimated_seconds", () => {
    // (3 + warmup + duration + max_throughput + 2) * configurations * rounds
    expect(
      estimatedSeconds({
        warmup_s: 1,
        duration_s: 3,
        max_throughput_s: 2,
        configurations: 2,
        rounds: 1,
      }),
    ).toBe(22);
    // docs/examples/go-processors.json: (3+3+10+5+2) * 4 * 2
    expect(
      estimatedSeconds({
        warmup_s: 3,
        duration_s: 10,
        max_throughput_s: 5,
        configurations: 4,
        rounds: 2,
      }),
    ).toBe(184);
  });

  it("uses the API's defaults for blank fields and gives up on unusable ones", () => {
    const form = initialForm(services, presets);
    // start, warm-up, measured, stacks phase (sampled by default), closed loop, stop
    expect(estimateForm(form)).toEqual({ seconds: (3 + 5 + 20 + 5 + 10 + 2) * 2 * 5, perRun: 45 });
    const blank = { ...form, load: { ...form.load, warmup_s: "" }, rounds: "" };
    expect(estimateForm(blank)?.seconds).toBe(45 * 2 * 5);
    expect(estimateForm({ ...form, sampleStacks: false })?.perRun).toBe(40);
    expect(estimateForm({ ...form, load: { ...form.load, duration_s: "-5" } })).toBeNull();
    expect(estimateForm({ ...form, rounds: "0" })).toBeNull();
    expect(estimateForm({ ...form, configurations: [] })).toBeNull();
  });
});
