// The form kit's constants the UI used to copy, now generated from openapi.json: what the forms
// read is what the backend publishes.

import { describe, expect, it } from "vitest";
import { OTEL_SUGGESTIONS } from "./EnvEditor";
import { AGENT_LANGUAGES, BODYLESS_METHODS, HTTP_METHODS } from "./form";
import { RAMP_STEP_OVERHEAD_S } from "./pipelineForm";

describe("constants generated from openapi.json", () => {
  it("has the ramp step's overhead the ramp's description tells", () => {
    expect(RAMP_STEP_OVERHEAD_S).toBe(1.5);
  });

  it("has the agent languages, the HTTP methods and the OTEL_* suggestions", () => {
    expect(AGENT_LANGUAGES).toEqual(["python", "java", "node"]);
    expect(HTTP_METHODS).toEqual(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
    expect(BODYLESS_METHODS).toEqual(["GET", "HEAD"]);
    expect(OTEL_SUGGESTIONS).toHaveLength(15);
    expect(OTEL_SUGGESTIONS[0]).toBe("OTEL_BSP_MAX_QUEUE_SIZE");
  });
});
