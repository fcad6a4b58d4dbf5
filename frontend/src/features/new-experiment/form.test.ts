import { describe, expect, it } from "vitest";
import { presets, services } from "../../test/fixtures";
import { configurationFromPreset, initialForm, presetsFor, toSpec, uniqueName } from "./form";

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
    expect(toSpec(form, presets)).toEqual({
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
    const spec = toSpec(form, presets);
    expect(spec.load).not.toHaveProperty("rate");
    expect(spec.load).not.toHaveProperty("warmup_s");
    expect(spec.load.query).toEqual({ iters: 1000 });
    form.load.rate = "0";
    expect(toSpec(form, presets).load.rate).toBe(0);
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
    expect(toSpec(form, presets).configurations[0]).toMatchObject({
      preset: "batch-tuned",
      env: { OTEL_BSP_MAX_QUEUE_SIZE: "16384", OTEL_BSP_SCHEDULE_DELAY: "1000" },
    });
    // A removed variable drops the preset, or the API would merge the variable back in.
    tuned.env = tuned.env.slice(1);
    tuned.env.push({ uid: "x", key: " OTEL_TRACES_SAMPLER ", value: "always_on" });
    tuned.env.push({ uid: "y", key: "", value: "" });
    const configuration = toSpec(form, presets).configurations[0];
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
});
