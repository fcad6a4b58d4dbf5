import { QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, within } from "@testing-library/react";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../api/client";
import { services } from "../test/fixtures";
import { stubApi, testQueryClient } from "../test/render";
import { shouldRetry } from "./queryClient";
import { routes } from "./routes";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderRoute(path: string) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  render(
    <QueryClientProvider client={testQueryClient()}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return router;
}

describe("routes", () => {
  it("has a page per URL, with the navigation on each", async () => {
    stubApi({ "GET /api/v1/experiments": [], "GET /api/v1/services": services });
    renderRoute("/");
    expect(await screen.findByRole("heading", { level: 1, name: "Experiments" })).toBeTruthy();
    expect(screen.getByRole("navigation", { name: "Main" })).toBeTruthy();
    expect(document.title).toBe("Experiments · TraceTax");
  });

  it("has the CI checks in the navigation", async () => {
    stubApi({ "GET /api/v1/checks": [], "GET /api/v1/experiments": [] });
    renderRoute("/checks");
    expect(await screen.findByRole("heading", { level: 1, name: "CI checks" })).toBeTruthy();
    const nav = screen.getByRole("navigation", { name: "Main" });
    expect(within(nav).getByRole("link", { name: "CI checks" }).getAttribute("aria-current")).toBe(
      "page",
    );
  });

  it("has the calibrations in the navigation", async () => {
    stubApi({ "GET /api/v1/calibrations": [] });
    renderRoute("/calibrations");
    expect(await screen.findByRole("heading", { level: 1, name: "Calibrations" })).toBeTruthy();
    const nav = screen.getByRole("navigation", { name: "Main" });
    expect(within(nav).getByRole("link", { name: "Calibrate" }).getAttribute("aria-current")).toBe(
      "page",
    );
  });

  it("has the new pipeline experiment beside the new experiment", async () => {
    stubApi({ "GET /api/v1/pipelines": [] });
    renderRoute("/pipelines/new");
    expect(
      await screen.findByRole("heading", { level: 1, name: "New pipeline experiment" }),
    ).toBeTruthy();
    const nav = screen.getByRole("navigation", { name: "Main" });
    const link = within(nav).getByRole("link", { name: "New pipeline experiment" });
    expect(link.getAttribute("aria-current")).toBe("page");
    expect(
      within(nav).getByRole("link", { name: "New experiment" }).getAttribute("aria-current"),
    ).toBeNull();
    expect(document.title).toBe("New pipeline experiment · TraceTax");
  });

  it("has the history in the navigation, and a service's page", async () => {
    stubApi({ "GET /api/v1/services": services });
    renderRoute("/history");
    expect(await screen.findByRole("heading", { level: 1, name: "History" })).toBeTruthy();
    const nav = screen.getByRole("navigation", { name: "Main" });
    expect(within(nav).getByRole("link", { name: "History" }).getAttribute("aria-current")).toBe(
      "page",
    );
    expect(document.title).toBe("History · TraceTax");
    cleanup();
    stubApi({ "GET /api/v1/history/services/go": { service: "go", configurations: [] } });
    renderRoute("/services/go");
    expect(await screen.findByRole("heading", { level: 1, name: "Service go" })).toBeTruthy();
  });

  it("answers an unknown URL with a not-found page", async () => {
    stubApi({});
    renderRoute("/no/such/page");
    expect(await screen.findByRole("heading", { name: "Page not found" })).toBeTruthy();
  });
});

describe("retries", () => {
  it("retries network errors, 5xx and 429, never another 4xx", () => {
    expect(shouldRetry(0, new ApiError(404, "no experiment x"))).toBe(false);
    expect(shouldRetry(0, new ApiError(422, "invalid"))).toBe(false);
    expect(shouldRetry(0, new ApiError(503, "unavailable"))).toBe(true);
    expect(shouldRetry(0, new ApiError(429, "reads that compute are running"))).toBe(true);
    expect(shouldRetry(2, new ApiError(429, "reads that compute are running"))).toBe(false);
    expect(shouldRetry(1, new ApiError(0, "unreachable"))).toBe(true);
    expect(shouldRetry(2, new ApiError(0, "unreachable"))).toBe(false);
  });
});
