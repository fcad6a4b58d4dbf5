import { describe, expect, it } from "vitest";
import { calibrationStatus, noiseFloor, presets } from "../../test/fixtures";
import {
  configurationText,
  floorMeaning,
  initialCalibrationForm,
  loadText,
  toCalibrationRequest,
} from "./calibrationForm";

describe("the calibration form", () => {
  const form = initialCalibrationForm(["java", "go"], presets);

  it("starts from the new-check form's load, so it serves the checks made there", () => {
    expect(form).toEqual({
      language: "go",
      configuration: "none",
      rate: "200",
      duration_s: "10",
      rounds: "5",
      iters: "1000",
      spans: "5",
    });
  });

  it("becomes the request `tracetax calibrate` sends, typed values left for the API to judge", () => {
    expect(toCalibrationRequest(form)).toEqual({
      service: { kind: "demo", language: "go" },
      configuration: { preset: "none" },
      load: { rate: 200, duration_s: 10, max_throughput_s: 0, query: { iters: 1000, spans: 5 } },
      rounds: 5,
    });
    const typed = toCalibrationRequest({ ...form, rate: "fast", rounds: "" });
    expect(typed.load.rate).toBe("fast");
    expect("rounds" in typed).toBe(false);
  });
});

describe("what a calibration means", () => {
  it("names the changes a check with its rounds can resolve", () => {
    expect(floorMeaning(calibrationStatus().noise_floor)).toEqual({
      rounds: 5,
      changes: ["±2.1% p50", "±8.7% p99", "±1.8% CPU per request"],
    });
    expect(floorMeaning({ p99: noiseFloor("p99", null, null) })).toBeNull();
    expect(floorMeaning(null)).toBeNull();
  });

  it("reads the signature", () => {
    const { signature } = calibrationStatus();
    expect(loadText(signature)).toBe(
      "200 req/s for 10 s, 16 connections, /work?iters=1000&spans=5",
    );
    expect(configurationText(signature)).toBe("none");
    expect(configurationText({ processor: "batch", env: { OTEL_BSP_MAX_QUEUE_SIZE: "8" } })).toBe(
      "batch, OTEL_BSP_MAX_QUEUE_SIZE=8",
    );
    expect(loadText({})).toBeNull();
  });
});
