import { describe, expect, it } from "vitest";
import { presets, services } from "../../test/fixtures";
import { placeIssue } from "./errors";
import {
  configurationFromPreset,
  initialForm,
  presetsFor,
  toSpec,
  uniqueName,
  withService,
} from "./form";

describe("the new-experiment form", () => {
  it("starts on Go with none as the baseline and batch-default", () => {
    const form = initialForm(services, presets);
    expect(form.language).toBe("go");
    expect(form.configurations.map((c) => c.name)).toEqual(["none", "batch-default"]);
    expect(form.baseline).toBe(form.configurations[0].uid);
  });

  it("builds the spec the API expects", () => {
    const form = initialForm(services, presets);
    form.load = {
      ...form.load,
      rate: "100",
      warmup_s: "1",
      duration_s: "3",
      max_throughput_s: "2",
    };
    form.rounds = "1";
    form.name = "  short run ";
    expect(toSpec(form, presets, services)).toEqual({
      subject: "service",
      name: "short run",
      service: { kind: "demo", language: "go" },
      configurations: [
        { name: "none", processor: "none", env: {}, baseline: true, preset: "none" },
        {
          name: "batch-default",
          processor: "batch",
          env: {},
          baseline: false,
          preset: "batch-default",
        },
      ],
      load: {
        rate: 100,
        warmup_s: 1,
        duration_s: 3,
        connections: 16,
        max_throughput_s: 2,
        path: "/work",
        query: { iters: 1000, spans: 5 },
      },
      rounds: 1,
      seed: 0,
      sample_stacks: true,
    });
  });

  it("leaves blank load fields to the API and sends the rest as typed", () => {
    const form = initialForm(services, presets);
    form.load = { ...form.load, rate: "", warmup_s: "", spans: "" };
    const spec = toSpec(form, presets, services);
    expect(spec.load).not.toHaveProperty("rate");
    expect(spec.load).not.toHaveProperty("warmup_s");
    expect(spec.load.query).toEqual({ iters: 1000 });
    form.load.rate = "0";
    expect(toSpec(form, presets, services).load.rate).toBe(0);
  });

  it("keeps a preset only while all of its variables are there", () => {
    const tuned = configurationFromPreset(presets[3], []);
    expect(tuned.env.map((r) => [r.key, r.value])).toEqual([
      ["OTEL_BSP_MAX_QUEUE_SIZE", "8192"],
      ["OTEL_BSP_SCHEDULE_DELAY", "1000"],
    ]);
    const form = { ...initialForm(services, presets), configurations: [tuned] };
    form.baseline = tuned.uid;
    // A changed value keeps the preset (the given env wins in the API's merge).
    tuned.env[0].value = "16384";
    expect(toSpec(form, presets, services).configurations[0]).toMatchObject({
      preset: "batch-tuned",
      env: { OTEL_BSP_MAX_QUEUE_SIZE: "16384", OTEL_BSP_SCHEDULE_DELAY: "1000" },
    });
    // A removed variable drops the preset, or the API would merge the variable back in.
    tuned.env = tuned.env.slice(1);
    tuned.env.push({ uid: "x", key: " OTEL_TRACES_SAMPLER ", value: "always_on" });
    tuned.env.push({ uid: "y", key: "", value: "" });
    const configuration = toSpec(form, presets, services).configurations[0];
    expect(configuration).not.toHaveProperty("preset");
    expect(configuration.env).toEqual({
      OTEL_BSP_SCHEDULE_DELAY: "1000",
      OTEL_TRACES_SAMPLER: "always_on",
    });
  });

  it("names added configurations uniquely and filters presets by language", () => {
    expect(uniqueName("simple", ["simple", "simple-2"])).toBe("simple-3");
    expect(uniqueName("simple", [])).toBe("simple");
    expect(presetsFor(presets, "go").map((p) => p.name)).not.toContain("java-agent");
    expect(presetsFor(presets, "java").map((p) => p.name)).toContain("java-agent");
  });

  it("sends a configuration's concurrency: the knobs its service has, blank ones not at all", () => {
    const form = initialForm(services, presets);
    const [none, batch] = form.configurations;
    expect(none.concurrency).toEqual({ threads: "", workers: "", gomaxprocs: "", cores: "" });
    batch.concurrency = { threads: "64", workers: "", gomaxprocs: "2", cores: "1" };
    const configurations = () => toSpec(form, presets, services).configurations;
    // Go: GOMAXPROCS and cores; threads (typed for the Java demo) are not Go's, so not sent.
    expect(configurations()[0]).not.toHaveProperty("concurrency");
    expect(configurations()[1].concurrency).toEqual({ gomaxprocs: 2, cores: 1 });
    form.language = "java";
    expect(configurations()[1].concurrency).toEqual({ threads: 64, cores: 1 });
    // Your service: GOMAXPROCS in Go, cores in any language.
    const command = { ...form, kind: "command" as const, configurationsEdited: true };
    command.command = { ...command.command, argv: [{ uid: "a", value: "./svc" }], port: "8080" };
    expect(toSpec(command, presets, services).configurations[1].concurrency).toEqual({ cores: 1 });
    const go = withService(command, presets, { commandLanguage: "go" });
    expect(toSpec(go, presets, services).configurations[1].concurrency).toEqual({
      gomaxprocs: 2,
      cores: 1,
    });
    batch.concurrency = { threads: "64", workers: "", gomaxprocs: "", cores: "" };
    expect(toSpec(go, presets, services).configurations[1]).not.toHaveProperty("concurrency");
  });

  it("places the API's concurrency messages beside the knob of the configuration", () => {
    const form = initialForm(services, presets);
    expect(placeIssue(form, "configurations.1.concurrency.gomaxprocs")).toBe(
      "configurations.1.concurrency.gomaxprocs",
    );
    expect(placeIssue(form, "configurations.1.concurrency")).toBe("configurations.1.concurrency");
    expect(placeIssue(form, "configurations.0.concurrency.bogus")).toBe(
      "configurations.0.concurrency",
    );
    expect(placeIssue(form, "configurations.5.concurrency.cores")).toBeNull();
  });

  it("sends the side-by-side seconds as typed and leaves a blank one to the API", () => {
    const form = initialForm(services, presets);
    expect(toSpec(form, presets, services).load).not.toHaveProperty("side_by_side_s");
    form.load = { ...form.load, side_by_side_s: "0" };
    expect(toSpec(form, presets, services).load.side_by_side_s).toBe(0);
    form.load.side_by_side_s = "15";
    expect(toSpec(form, presets, services).load.side_by_side_s).toBe(15);
    expect(placeIssue(form, "load.side_by_side_s")).toBe("load.side_by_side_s");
  });

  it("sends the instances side by side as typed, blank as the API's one", () => {
    const form = initialForm(services, presets);
    expect(toSpec(form, presets, services).load).not.toHaveProperty("side_by_side_instances");
    form.load = { ...form.load, side_by_side_instances: "2" };
    expect(toSpec(form, presets, services).load.side_by_side_instances).toBe(2);
    expect(placeIssue(form, "load.side_by_side_instances")).toBe("load.side_by_side_instances");
  });

  it("sends a precision only when asked for, with the metrics in the API's order", () => {
    const form = initialForm(services, presets);
    expect(toSpec(form, presets, services)).not.toHaveProperty("precision");
    expect(placeIssue(form, "precision.max_wall_time_s")).toBeNull();
    form.precision = {
      enabled: true,
      metrics: ["rss_max_bytes", "p99"],
      half_width_pct: "3",
      max_wall_time_s: "600",
    };
    expect(toSpec(form, presets, services).precision).toEqual({
      metrics: ["p99", "rss_max_bytes"],
      half_width_pct: 3,
      max_wall_time_s: 600,
    });
    // A blank half-width is left to the API (which refuses it outside a check, by name).
    form.precision.half_width_pct = "";
    expect(toSpec(form, presets, services).precision).not.toHaveProperty("half_width_pct");
    expect(placeIssue(form, "precision.max_wall_time_s")).toBe("precision.max_wall_time_s");
    expect(placeIssue(form, "precision")).toBe("precision");
  });
});
