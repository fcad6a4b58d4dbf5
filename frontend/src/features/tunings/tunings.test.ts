import { describe, expect, it } from "vitest";
import { argRows } from "../../components/spec-form/form";
import { services } from "../../test/fixtures";
import { fast, keeper, tuningReport, unmeasured } from "../../test/tuningFixtures";
import {
  formatKept,
  formatLost,
  formatOverhead,
  formatRss,
  pointSize,
  tradeoffOption,
  tradeoffPoints,
} from "./tradeoff";
import {
  initialTuningForm,
  launchAvailability,
  processorAvailability,
  type TuningFormState,
  toTuningBody,
  tuningIssueTarget,
  tuningSeconds,
} from "./tuningForm";

describe("the trade-off", () => {
  const points = tradeoffPoints(tuningReport());

  it("has each candidate once, at its last rung, by overhead, the front and the winner marked", () => {
    expect(
      points.map((p) => [
        p.outcome.name,
        p.rung,
        p.outcome.p99_overhead_pct,
        p.onFront,
        p.recommended,
      ]),
    ).toEqual([
      [fast.name, 2, 3.5, true, false],
      [keeper.name, 2, 5.2, true, true],
      [unmeasured.name, 1, null, false, false],
    ]);
  });

  it("draws the front as a line by overhead, leaves unknown overhead out, sizes points by memory", () => {
    const option = tradeoffOption(points);
    const series = option.series as {
      type: string;
      name: string;
      data: { name: string; value: number[]; symbolSize: number }[];
    }[];
    expect(series.map((s) => [s.type, s.name, s.data.map((d) => d.name)])).toEqual([
      ["line", "Pareto front", [fast.name, keeper.name]],
      ["scatter", "Off the front", []],
      ["scatter", "Recommended", [keeper.name]],
    ]);
    const [first, second] = series[0].data;
    expect(first.value).toEqual([3.5, 98]);
    expect([first.symbolSize, second.symbolSize]).toEqual([9, 28]);
    expect(option.aria).toMatchObject({ enabled: true });
    expect(JSON.stringify(option.aria)).toContain("Pareto front: q512-b64-d200");
  });

  it("says unknown for what was not measured, never 0", () => {
    expect([formatOverhead(null), formatLost(null), formatRss(null), formatKept(null)]).toEqual([
      "unknown",
      "unknown",
      "unknown",
      "unknown",
    ]);
    expect([formatOverhead(-2), formatLost(0), formatRss(45.25), formatKept(1)]).toEqual([
      "\u22122.0%",
      "0",
      "45.3 MiB",
      "100.0%",
    ]);
    expect(pointSize(null, [40, 50])).toBe(9);
    expect(pointSize(40, [40, 40])).toBe(18.5);
  });
});

describe("the new-tuning form", () => {
  const form = initialTuningForm(["java", "go"]);

  it("starts from the API's defaults, without a burst", () => {
    expect(toTuningBody(form, services)).toEqual({
      service: { kind: "demo", language: "go" },
      processor: "batch",
      load: { rate: 200, warmup_s: 5, duration_s: 20, connections: 16 },
      budgets: { p99_overhead_pct: 10, cpu_overhead_pct: 20, max_lost_spans: 0 },
      rounds: 3,
      confirm_rounds: 5,
      wall_time_s: 1200,
    });
    expect(tuningSeconds(form)).toBe(1200);
    expect(tuningSeconds({ ...form, wall_time_s: "" })).toBeNull();
  });

  it("sends what was typed for the API to judge", () => {
    const body = toTuningBody(
      { ...form, burst: true, burst_multiplier: "lots", wall_time_s: "" },
      services,
    );
    expect(body.load.burst).toEqual({ start_s: 5, duration_s: 3, multiplier: "lots" });
    expect("wall_time_s" in body).toBe(false);
  });

  it("places each 422 beside what edits it", () => {
    const withBurst = { ...form, burst: true };
    expect(tuningIssueTarget(form, "wall_time_s")).toBe("wall_time_s");
    expect(tuningIssueTarget(form, "service.language")).toBe("service.language");
    expect(tuningIssueTarget(form, "load")).toBe("load");
    expect(tuningIssueTarget(form, "load.rate")).toBe("load.rate");
    expect(tuningIssueTarget(withBurst, "load.burst.multiplier")).toBe("load.burst.multiplier");
    expect(tuningIssueTarget(withBurst, "load.burst")).toBe("load.burst");
    expect(tuningIssueTarget(form, "load.burst.multiplier")).toBeNull();
    expect(tuningIssueTarget(form, "budgets.cpu_overhead_pct")).toBe("budgets.cpu_overhead_pct");
    expect(tuningIssueTarget(form, "load.path")).toBeNull();
    expect(tuningIssueTarget(form, "current_env")).toBeNull();
  });

  it("offers the agent only where the demo has one", () => {
    const [go, java] = services;
    expect(processorAvailability(java, "agent")).toEqual({ available: true, why: null });
    expect(processorAvailability(go, "agent")).toEqual({
      available: false,
      why: "go has no agent",
    });
    expect(processorAvailability(go, "batch").available).toBe(true);
  });

  /** Your service: a Go binary on port 8080, what the e2e fills in. */
  const own = (): TuningFormState => {
    const initial = initialTuningForm(["java", "go"]);
    return {
      ...initial,
      kind: "command",
      command: {
        ...initial.command,
        argv: argRows(["./svc", "-v", ""]),
        port: "8080",
        language: "go",
      },
      request: {
        method: "POST",
        paths: [{ uid: "p", path: " /orders ", weight: "3" }],
        headers: [{ uid: "h", name: "content-type", value: "application/json" }],
        body: "{}",
      },
    };
  };

  it("tunes your service: the command, its requests and the concurrency it has", () => {
    const form = own();
    form.concurrency = { threads: "64", workers: "", gomaxprocs: "4", cores: "2" };
    expect(toTuningBody(form, services)).toEqual({
      service: {
        kind: "command",
        argv: ["./svc", "-v"],
        port: 8080,
        health_path: "/healthz",
        language: "go",
        startup_timeout_s: 60,
      },
      processor: "batch",
      load: {
        rate: 200,
        warmup_s: 5,
        duration_s: 20,
        connections: 16,
        method: "POST",
        paths: [{ path: "/orders", weight: 3 }],
        headers: { "content-type": "application/json" },
        body: "{}",
      },
      // Threads are not a Go command's knob (its argv sets them): not sent.
      concurrency: { gomaxprocs: 4, cores: 2 },
      budgets: { p99_overhead_pct: 10, cpu_overhead_pct: 20, max_lost_spans: 0 },
      rounds: 3,
      confirm_rounds: 5,
      wall_time_s: 1200,
    });
    form.command = { ...form.command, language: "python" };
    expect(toTuningBody(form, services).concurrency).toEqual({ cores: 2 });
  });

  it("sends a demo's own knobs only, and no concurrency when none is typed", () => {
    const java = { ...form, language: "java" };
    const typed = { threads: "64", workers: "", gomaxprocs: "4", cores: "" };
    expect(toTuningBody({ ...java, concurrency: typed }, services).concurrency).toEqual({
      threads: 64,
    });
    expect(toTuningBody({ ...form, concurrency: typed }, services).concurrency).toEqual({
      gomaxprocs: 4,
    });
    expect("concurrency" in toTuningBody(form, services)).toBe(false);
  });

  it("offers your service's zero-code agent where its language has one", () => {
    const go = own();
    expect(launchAvailability(go, undefined, "batch")).toEqual({ available: true, why: null });
    expect(launchAvailability(go, undefined, "agent")).toEqual({
      available: false,
      why: "no zero-code agent for Go",
    });
    const python = { ...go, command: { ...go.command, language: "python" as const } };
    expect(launchAvailability(python, undefined, "agent").available).toBe(true);
  });

  it("places your service's and the concurrency's 422 beside what edits them", () => {
    const command = own();
    expect(tuningIssueTarget(command, "service")).toBe("service");
    expect(tuningIssueTarget(command, "service.argv.1")).toBe("service.argv.1");
    expect(tuningIssueTarget(command, "service.argv.7")).toBe("service.argv");
    expect(tuningIssueTarget(command, "service.port")).toBe("service.port");
    expect(tuningIssueTarget(command, "load.paths.0.weight")).toBe("load.paths.0.weight");
    expect(tuningIssueTarget(command, "load.body")).toBe("load.body");
    expect(tuningIssueTarget(command, "load.rate")).toBe("load.rate");
    expect(tuningIssueTarget(form, "load.body")).toBeNull();
    expect(tuningIssueTarget(form, "service.port")).toBe("service.language");
    expect(tuningIssueTarget(form, "concurrency.threads")).toBe("concurrency.threads");
    expect(tuningIssueTarget(command, "concurrency")).toBe("concurrency");
  });
});
