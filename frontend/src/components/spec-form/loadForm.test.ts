import { describe, expect, it } from "vitest";
import { type LoadDraft, loadRequest } from "./loadForm";

const draft: LoadDraft = { rate: "200", duration_s: "10", rounds: "3", iters: "1000", spans: "5" };
const fixed = { warmup_s: 2, max_throughput_s: 0 };

describe("a check's or a calibration's load", () => {
  it("sends the fixed load with what was typed, and rounds only when typed", () => {
    expect(loadRequest(draft, fixed)).toEqual({
      load: { ...fixed, rate: 200, duration_s: 10, query: { iters: 1000, spans: 5 } },
      rounds: 3,
    });
    const typed = loadRequest({ ...draft, rate: "fast", rounds: "", spans: "" }, {});
    expect(typed).toEqual({ load: { rate: "fast", duration_s: 10, query: { iters: 1000 } } });
    expect("rounds" in typed).toBe(false);
  });
});
