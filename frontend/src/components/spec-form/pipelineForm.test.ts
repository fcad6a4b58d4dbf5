import { describe, expect, it } from "vitest";
import { pipelineVariants as catalog } from "../../test/pipelineFixtures";
import {
  fileVariant,
  initialPipelineForm,
  labSettings,
  nameFromPath,
  toggleShipped,
  toPipelineSpec,
  withVariants,
} from "./pipelineForm";

describe("the pipeline form", () => {
  it("starts from passthrough, the baseline, and batch-default", () => {
    const form = initialPipelineForm(catalog);
    expect(form.variants.map((v) => v.pipeline)).toEqual(["passthrough", "batch-default"]);
    expect(form.baseline).toBe(form.variants[0].uid);
    expect(toPipelineSpec(form)).toEqual({
      subject: "collector",
      configurations: [
        // A shipped variant goes by its pipeline's name: none is sent.
        { pipeline: "passthrough", baseline: true, settings: {} },
        { pipeline: "batch-default", baseline: false, settings: {} },
      ],
      load: {
        spans_per_s: 1000,
        warmup_s: 2,
        duration_s: 20,
        drain_s: 6,
        spans_per_trace: 5,
        attribute_bytes: 0,
      },
      rounds: 5,
      seed: 0,
    });
  });

  it("keeps shipped variants in the catalog's order, config files after them", () => {
    let form = initialPipelineForm(catalog);
    form = withVariants(
      form,
      [
        ...form.variants,
        fileVariant(
          "/etc/otel/My Pipeline.yaml",
          form.variants.map((v) => v.name),
        ),
      ],
      catalog,
    );
    form = toggleShipped(form, "loadbalancing", catalog);
    form = toggleShipped(form, "batch-tuned", catalog);
    expect(form.variants.map((v) => v.pipeline ?? v.configFile)).toEqual([
      "passthrough",
      "batch-default",
      "batch-tuned",
      "loadbalancing",
      "/etc/otel/My Pipeline.yaml",
    ]);
    const file = toPipelineSpec(form).configurations.at(-1);
    expect(file).toEqual({
      name: "my-pipeline",
      config_file: "/etc/otel/My Pipeline.yaml",
      baseline: false,
      settings: {},
    });
  });

  it("moves the baseline when its variant is unchecked", () => {
    let form = initialPipelineForm(catalog);
    form = toggleShipped(form, "tail-sampling", catalog);
    form = { ...form, baseline: form.variants[2].uid };
    form = toggleShipped(form, "tail-sampling", catalog);
    expect(form.variants.find((v) => v.uid === form.baseline)?.pipeline).toBe("passthrough");
    form = toggleShipped(form, "passthrough", catalog);
    expect(form.variants.find((v) => v.uid === form.baseline)?.pipeline).toBe("batch-default");
    form = toggleShipped(form, "batch-default", catalog);
    expect(form.variants).toEqual([]);
    expect(form.baseline).toBe("");
  });

  it("sends settings, names a config file from its path, and lets the API judge the rest", () => {
    const form = initialPipelineForm(catalog);
    const spec = toPipelineSpec({
      ...form,
      name: "  batching  ",
      variants: [
        {
          ...form.variants[0],
          settings: [
            { uid: "a", key: " LAB_BATCH_SIZE ", value: "512" },
            { uid: "b", key: "", value: "" },
          ],
        },
        form.variants[1],
      ],
      load: { ...form.load, spans_per_s: "", attribute_bytes: "lots" },
      rounds: "",
    });
    expect(spec.name).toBe("batching");
    expect(spec.configurations[0].settings).toEqual({ LAB_BATCH_SIZE: "512" });
    expect(spec.load).not.toHaveProperty("spans_per_s");
    expect(spec.load.attribute_bytes).toBe("lots");
    expect(spec.rounds).toBe(5);
    expect(nameFromPath("/tmp/x/Tail_Sampling.v2.yml")).toBe("tail_sampling.v2");
    expect(nameFromPath("/tmp/---")).toBe("custom");
  });

  it("sends the ramp only when it is on, blanks left to the API's defaults", () => {
    const form = initialPipelineForm(catalog);
    expect(form.ramp.enabled).toBe(false);
    expect(toPipelineSpec(form).load).not.toHaveProperty("ramp");
    const spec = toPipelineSpec({
      ...form,
      ramp: { ...form.ramp, enabled: true, factor: "2", max_steps: "", step_s: "x" },
    });
    expect(spec.load.ramp).toEqual({ factor: 2, step_s: "x", max_spans_per_s: 200000 });
  });

  it("finds the settings an overlay reads, with their defaults", () => {
    expect(labSettings(catalog[2].config)).toEqual([
      { name: "LAB_BATCH_SIZE", default: "16384" },
      { name: "LAB_BATCH_MAX_SIZE", default: "16384" },
      { name: "LAB_BATCH_TIMEOUT", default: "1s" },
    ]);
    // What the engine sets (no default) is not offered.
    expect(labSettings(catalog[4].config)).toEqual([]);
  });
});
