import { describe, expect, it } from "vitest";
import { presets } from "../../test/fixtures";
import { initialCheckForm, parseEnvLines, toCheckRequest } from "./checkForm";

describe("the new-check form", () => {
  const form = initialCheckForm(["java", "go"], presets);

  it("starts from the CLI's defaults and the documented budget", () => {
    expect(form).toMatchObject({
      language: "go",
      baseline: "none",
      candidate: "batch-default",
      rate: "200",
      duration_s: "10",
      rounds: "3",
      p50_overhead_pct: "",
      p99_overhead_pct: "15",
      cpu_overhead_pct: "20",
      p50_added_ms: "",
      p99_added_ms: "",
      cpu_added_us: "",
      max_dropped_spans: "0",
      strict: false,
    });
  });

  it("becomes a request with the CLI's load, so the CLI can repeat it", () => {
    expect(
      toCheckRequest({
        ...form,
        candidateEnv: "OTEL_BSP_MAX_QUEUE_SIZE=4096\n\n  OTEL_BSP_SCHEDULE_DELAY = 500 ",
        cpu_overhead_pct: "",
        strict: true,
      }),
    ).toEqual({
      subject: "service",
      service: { kind: "demo", language: "go" },
      baseline: { preset: "none" },
      candidate: {
        preset: "batch-default",
        env: { OTEL_BSP_MAX_QUEUE_SIZE: "4096", OTEL_BSP_SCHEDULE_DELAY: "500" },
      },
      load: {
        rate: 200,
        warmup_s: 2,
        duration_s: 10,
        max_throughput_s: 0,
        query: { iters: 1000, spans: 5 },
      },
      rounds: 3,
      budget: { p99_overhead_pct: 15, max_dropped_spans: 0 },
      strict: true,
    });
  });

  it("buys rounds up to a max wall time only when one is typed", () => {
    expect(toCheckRequest(form)).not.toHaveProperty("max_wall_time_s");
    expect(toCheckRequest({ ...form, maxWallTime: "900" }).max_wall_time_s).toBe(900);
  });

  it("sends every budget line that is set, relative and absolute", () => {
    expect(
      toCheckRequest({ ...form, p50_added_ms: "0.5", cpu_added_us: "25", p99_overhead_pct: "" })
        .budget,
    ).toEqual({ cpu_overhead_pct: 20, p50_added_ms: 0.5, cpu_added_us: 25, max_dropped_spans: 0 });
  });

  it("sends the cost budget with the rate it is priced at", () => {
    const budget = toCheckRequest({
      ...form,
      max_bytes_per_request: "2500",
      max_usd_per_month: "40",
      costRate: "1000",
    }).budget;
    expect(budget).toMatchObject({
      max_bytes_per_request: 2500,
      max_usd_per_month: 40,
      cost: { requests_per_s: 1000 },
    });
    expect("cost" in toCheckRequest(form).budget).toBe(false);
  });

  it("sends what was typed for the API to judge", () => {
    const request = toCheckRequest({ ...form, rate: "fast", rounds: "" });
    expect(request.load.rate).toBe("fast");
    expect("rounds" in request).toBe(false);
    expect(parseEnvLines("A=1=2\nB")).toEqual({ A: "1=2", B: "" });
  });
});
