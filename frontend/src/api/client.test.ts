import { describe, expect, it } from "vitest";
import { detailMessage } from "./client";

describe("detailMessage", () => {
  it("returns a string detail as is", () => {
    expect(detailMessage({ detail: "unknown service: ruby" }, "x")).toBe("unknown service: ruby");
  });

  it("joins a 422 validation list with field paths", () => {
    const body = {
      detail: [
        { loc: ["body", "load", "rate"], msg: "Input should be greater than 0" },
        { loc: ["body", "rounds"], msg: "Field required" },
      ],
    };
    expect(detailMessage(body, "x")).toBe(
      "load.rate: Input should be greater than 0; rounds: Field required",
    );
  });

  it("falls back when there is no detail", () => {
    expect(detailMessage(null, "HTTP 500")).toBe("HTTP 500");
  });
});
