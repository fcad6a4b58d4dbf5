import { describe, expect, it } from "vitest";
import { pipelineRecommendation } from "../../test/pipelineFixtures";
import { hasAdvice, limiterText, parseTarget } from "./pipelineRecommendation";

describe("the pipeline recommendation", () => {
  it("has advice when it sizes a variant, makes a choice or has evidence", () => {
    expect(hasAdvice(pipelineRecommendation())).toBe(true);
    expect(hasAdvice(undefined)).toBe(false);
    const none = pipelineRecommendation({ sizing: [], evidence: [] });
    expect(hasAdvice(none)).toBe(false);
    expect(hasAdvice({ ...none, batch: "batch-tuned" })).toBe(true);
    expect(hasAdvice({ ...none, trace_holding: "tail-sampling" })).toBe(true);
  });

  it("writes the memory_limiter as a config sets it", () => {
    expect(limiterText({ limit_mib: 69, spike_limit_mib: 14 })).toBe(
      "limit_mib: 69, spike_limit_mib: 14",
    );
    expect(limiterText({ limit_mib: 1200 })).toBe("limit_mib: 1,200");
    expect(limiterText(null)).toBeNull();
  });

  it("takes a span rate to size for above 0 and up to the API's limit", () => {
    expect(parseTarget(" 20000 ")).toEqual({ target: 20000 });
    expect(parseTarget("1.5e4")).toEqual({ target: 15000 });
    for (const text of ["", "0", "-5", "fast"])
      expect(parseTarget(text)).toEqual({ error: "Enter a span rate above 0." });
    expect(parseTarget("20000000")).toEqual({ error: "At most 10,000,000 spans/s." });
  });
});
