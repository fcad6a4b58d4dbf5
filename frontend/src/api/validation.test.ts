import { describe, expect, it } from "vitest";
import { ApiError } from "./client";
import { fieldId, fieldPath, formErrors, messagesFor } from "./validation";

const unprocessable = (detail: unknown) => new ApiError(422, "invalid", { detail });

describe("the 422-to-field mapping", () => {
  it("keys each message by its field path without 'body'", () => {
    const errors = formErrors(
      unprocessable([
        {
          loc: ["body", "load", "rate"],
          msg: "Input should be greater than 0",
          type: "greater_than",
        },
        { loc: ["body", "configurations", 1, "processor"], msg: "go has no mode 'agent'" },
        { loc: ["body", "load", "rate"], msg: "second message" },
      ]),
    );
    expect(errors.fields["load.rate"]).toEqual([
      "Input should be greater than 0",
      "second message",
    ]);
    expect(errors.fields["configurations.1.processor"]).toEqual(["go has no mode 'agent'"]);
    expect(errors.issues.map((i) => i.field)).toEqual([
      "load.rate",
      "configurations.1.processor",
      "load.rate",
    ]);
    expect(errors.form).toEqual([]);
  });

  it("puts spec-level messages (loc ['body']) on the form", () => {
    const errors = formErrors(
      unprocessable([
        { loc: ["body"], msg: "Value error, exactly one configuration must be the baseline" },
      ]),
    );
    expect(errors.form).toEqual(["Value error, exactly one configuration must be the baseline"]);
    expect(errors.issues).toEqual([]);
  });

  it("drops the tag of the service union", () => {
    expect(fieldPath(["body", "service", "demo", "language"])).toBe("service.language");
    expect(fieldPath(["query", "limit"])).toBe("query.limit");
  });

  it("shows a 404 detail, a 409 or a network error as a form error", () => {
    expect(formErrors(new ApiError(404, "unknown service 'ruby'; available: go", {})).form).toEqual(
      ["unknown service 'ruby'; available: go"],
    );
    expect(formErrors(new Error("Could not reach the backend")).form).toEqual([
      "Could not reach the backend",
    ]);
    expect(formErrors(null).form).toEqual([]);
  });

  it("collects nested messages under a field with their sub-path", () => {
    const errors = formErrors(
      unprocessable([
        {
          loc: ["body", "configurations", 0, "env"],
          msg: "only OTEL_* variables may be overridden",
        },
        {
          loc: ["body", "configurations", 0, "env", "OTEL_X"],
          msg: "Input should be a valid string",
        },
        { loc: ["body", "configurations", 10, "env"], msg: "not this one" },
      ]),
    );
    expect(messagesFor(errors, "configurations.0.env", true)).toEqual([
      "only OTEL_* variables may be overridden",
      "OTEL_X: Input should be a valid string",
    ]);
    expect(messagesFor(errors, "configurations.0.env")).toEqual([
      "only OTEL_* variables may be overridden",
    ]);
  });

  it("derives DOM ids from field paths", () => {
    expect(fieldId("load.rate")).toBe("field-load-rate");
    expect(fieldId("configurations.1.env")).toBe("field-configurations-1-env");
  });
});
