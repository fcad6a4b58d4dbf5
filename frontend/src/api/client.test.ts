import { afterEach, describe, expect, it, vi } from "vitest";
import { json, stubApi } from "../test/render";
import { ApiError, api, detailMessage, unwrap } from "./client";

afterEach(() => vi.unstubAllGlobals());

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

describe("unwrap", () => {
  it("returns the data of a 2xx answer", async () => {
    stubApi({ "GET /api/v1/presets": [{ name: "none" }] });
    await expect(unwrap(api.GET("/api/v1/presets"))).resolves.toEqual([{ name: "none" }]);
  });

  it("throws an ApiError with the API's detail and keeps the body", async () => {
    stubApi({
      "GET /api/v1/experiments/nope": () => json(404, { detail: "no experiment nope" }),
    });
    const pending = unwrap(
      api.GET("/api/v1/experiments/{experiment_id}", {
        params: { path: { experiment_id: "nope" } },
      }),
    );
    await expect(pending).rejects.toMatchObject({
      name: "ApiError",
      status: 404,
      message: "no experiment nope",
      body: { detail: "no experiment nope" },
    });
  });

  it("accepts listed statuses as data", async () => {
    stubApi({ "GET /api/health": () => json(503, { status: "degraded", components: [] }) });
    await expect(unwrap(api.GET("/api/health"), [503])).resolves.toEqual({
      status: "degraded",
      components: [],
    });
  });

  it("turns a network failure into status 0", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => {
        throw new TypeError("Failed to fetch");
      }),
    );
    const error = await unwrap(api.GET("/api/v1/presets")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(0);
    expect((error as ApiError).message).toContain("Failed to fetch");
  });

  it("falls back to the status when the body has no detail", async () => {
    stubApi({ "GET /api/v1/presets": () => new Response("oops", { status: 502 }) });
    await expect(unwrap(api.GET("/api/v1/presets"))).rejects.toThrow("HTTP 502");
  });
});
