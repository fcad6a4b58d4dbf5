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
    // + one side-by-side phase per round: 3 start + 2 warm-up + 4 + 2 stop + 2.5 settle
    expect(
      estimatedSeconds({
        warmup_s: 1,
        duration_s: 3,
        max_throughput_s: 2,
        configurations: 2,
        rounds: 2,
        side_by_side_s: 4,
        side_by_side_warmup_s: 2,
      }),
    ).toBe((22 + 13.5) * 2);
  });

  it("uses the API's defaults for blank fields and gives up on unusable ones", () => {
    const form = initialForm(services, presets);
    // start, warm-up, measured, stacks phase (sampled by default), closed loop, stop
    // and the side-by-side phase of each round: start, warm-up, as long as measured up to 10 s,
    // stop, settle
    const side = 3 + 5 + 10 + 2 + 2.5;
    expect(estimateForm(form)).toEqual({
      seconds: ((3 + 5 + 15 + 5 + 5 + 2) * 2 + side) * 5,
      perRun: 35,
      sideBySide: side,
      upTo: null,
    });
    const blank = { ...form, load: { ...form.load, warmup_s: "" }, rounds: "" };
    expect(estimateForm(blank)?.seconds).toBe((35 * 2 + side) * 5);
    const off = { ...form, load: { ...form.load, side_by_side_s: "0" } };
    expect(estimateForm(off)?.seconds).toBe(35 * 2 * 5);
    const short = { ...form, load: { ...form.load, side_by_side_s: "5" } };
    expect(estimateForm(short)?.sideBySide).toBe(side - 5);
    const shortSolo = { ...form, load: { ...form.load, duration_s: "4" } };
    expect(estimateForm(shortSolo)?.sideBySide).toBe(side - 6); // as long as a solo phase under 10 s
    // One configuration has nothing to run beside.
    expect(
      estimateForm({ ...form, configurations: form.configurations.slice(0, 1) })?.seconds,
    ).toBe(35 * 5);
    const precise = { ...form, precision: { ...form.precision, enabled: true } };
    expect(estimateForm(precise)?.upTo).toBe(Number(form.precision.max_wall_time_s));
    expect(estimateForm({ ...form, sampleStacks: false })?.perRun).toBe(30);
    expect(estimateForm({ ...form, load: { ...form.load, duration_s: "-5" } })).toBeNull();
    expect(estimateForm({ ...form, rounds: "0" })).toBeNull();
    expect(estimateForm({ ...form, configurations: [] })).toBeNull();
  });
});
