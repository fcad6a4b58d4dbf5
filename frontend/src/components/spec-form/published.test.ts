// The form kit's constants the UI used to copy, now generated from openapi.json: what the forms
// and the estimate read is what the backend publishes.

import { describe, expect, it } from "vitest";
import { OTEL_SUGGESTIONS } from "./EnvEditor";
import { STARTUP_S, STOP_S } from "./estimate";
import { AGENT_LANGUAGES, BODYLESS_METHODS, HTTP_METHODS } from "./form";
import { PIPELINE_STARTUP_S, PIPELINE_STOP_S, RAMP_STEP_OVERHEAD_S } from "./pipelineForm";

describe("constants generated from openapi.json", () => {
  it("has the estimate's start, stop and ramp-step times", () => {
    expect([STARTUP_S, STOP_S]).toEqual([3, 2]);
    expect([PIPELINE_STARTUP_S, PIPELINE_STOP_S, RAMP_STEP_OVERHEAD_S]).toEqual([2, 2, 1.5]);
  });

  it("has the agent languages, the HTTP methods and the OTEL_* suggestions", () => {
    expect(AGENT_LANGUAGES).toEqual(["python", "java", "node"]);
    expect(HTTP_METHODS).toEqual(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
    expect(BODYLESS_METHODS).toEqual(["GET", "HEAD"]);
    expect(OTEL_SUGGESTIONS).toHaveLength(15);
    expect(OTEL_SUGGESTIONS[0]).toBe("OTEL_BSP_MAX_QUEUE_SIZE");
  });
});
