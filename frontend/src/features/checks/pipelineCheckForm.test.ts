import { describe, expect, it } from "vitest";
import { pipelineVariants as catalog } from "../../test/pipelineFixtures";
import {
  CONFIG_FILE,
  fileVariantName,
  initialPipelineCheckForm,
  toPipelineCheckRequest,
} from "./pipelineCheckForm";

describe("the new pipeline check form", () => {
  const form = initialPipelineCheckForm(catalog);

  it("starts from the CLI's defaults: passthrough against batch-default, the documented budget", () => {
    expect(form).toMatchObject({
      baseline: { pipeline: "passthrough" },
      candidate: { pipeline: "batch-default" },
      spans_per_s: "5000",
      duration_s: "10",
      rounds: "5",
      cores_per_10k_overhead_pct: "30",
      max_lost_spans: "0",
      strict: false,
    });
    // Without a shipped variant, a config file of one's own.
    expect(initialPipelineCheckForm([]).baseline.pipeline).toBe(CONFIG_FILE);
  });

  it("becomes the request the CLI sends: shipped variants by themselves, pipeline budget only", () => {
    expect(toPipelineCheckRequest(form)).toEqual({
      subject: "collector",
      baseline: { pipeline: "passthrough" },
      candidate: { pipeline: "batch-default" },
      load: { spans_per_s: 5000, warmup_s: 2, duration_s: 10 },
      budget: { cores_per_10k_overhead_pct: 30, max_lost_spans: 0 },
      rounds: 5,
      strict: false,
    });
  });

  it("names a config file after it unless named, and sends what was typed for the API to judge", () => {
    const file = { pipeline: CONFIG_FILE, configFile: " /srv/otel/My Overlay.yaml ", name: "" };
    expect(fileVariantName(file)).toBe("my-overlay");
    const request = toPipelineCheckRequest({
      ...form,
      candidate: file,
      baseline: { ...file, configFile: "/srv/otel/base.yml", name: " base " },
      spans_per_s: "lots",
      duration_s: "",
      rounds: "",
      rss_added_mib: "12.5",
      max_lost_spans: "",
    });
    expect(request.candidate).toEqual({
      name: "my-overlay",
      config_file: "/srv/otel/My Overlay.yaml",
    });
    expect(request.baseline).toEqual({ name: "base", config_file: "/srv/otel/base.yml" });
    expect(request.load).toEqual({ spans_per_s: "lots", warmup_s: 2 });
    expect(request).not.toHaveProperty("rounds");
    expect(request.budget).toEqual({ cores_per_10k_overhead_pct: 30, rss_added_mib: 12.5 });
  });
});

describe("a pipeline check's history fields", () => {
  it("send the provenance and the gate, and the CLI line repeats them", () => {
    const form = {
      ...initialPipelineCheckForm(catalog),
      branch: "feature/lb",
      commit: "a1b2c3d",
      againstHistory: "main:8",
      maxGrowth: "10",
    };
    const request = toPipelineCheckRequest(form);
    expect(request.provenance).toEqual({ branch: "feature/lb", commit: "a1b2c3d" });
    expect(request.against_history).toEqual({ branch: "main", points: 8, max_growth_pct: 10 });
  });

  it("send neither when left blank", () => {
    const request = toPipelineCheckRequest(initialPipelineCheckForm(catalog));
    expect(request.provenance).toBeUndefined();
    expect(request.against_history).toBeUndefined();
  });
});
