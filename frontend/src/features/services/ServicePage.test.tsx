import { cleanup, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { serviceHistory } from "../../test/historyFixtures";
import { json, renderAt, stubApi } from "../../test/render";
import { ServicePage } from "./ServicePage";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const at = { path: "/services/go", pattern: "/services/:service" };

describe("ServicePage", () => {
  it("lists each configuration's latest overhead, verdict and trend, linking to its history", async () => {
    stubApi({ "GET /api/v1/history/services/go": serviceHistory() });
    renderAt(<ServicePage />, at);
    expect(screen.getByRole("heading", { level: 1, name: "Service go" })).toBeTruthy();
    const section = (
      await screen.findByRole("heading", { level: 2, name: "batch-default" })
    ).closest("section") as HTMLElement;
    expect(
      within(section).getByRole("link", { name: "History of batch-default" }).getAttribute("href"),
    ).toBe("/history?service=go&configuration=batch-default");
    const p99 = within(section)
      .getByRole("rowheader", { name: "p99 latency overhead" })
      .closest("tr") as HTMLElement;
    expect(within(p99).getByText("+19%")).toBeTruthy();
    expect(within(p99).getByText("[+18%, +21%]")).toBeTruthy();
    expect(within(p99).getByText("fail")).toBeTruthy();
    expect(within(p99).getByRole("link", { name: "0ba1b2c" }).getAttribute("href")).toBe(
      "/checks/check-11-0000-0000-0000-000000000000",
    );
    expect(
      within(p99).getByRole("img", {
        name: "p99 latency overhead of batch-default, last 6 checks",
      }),
    ).toBeTruthy();
    const bytes = within(section)
      .getByRole("rowheader", { name: "OTLP bytes per request" })
      .closest("tr") as HTMLElement;
    expect(within(bytes).getByText("no trend yet")).toBeTruthy();
  });

  it("reads an unknown latest overhead as unknown, never 0", async () => {
    stubApi({ "GET /api/v1/history/services/go": serviceHistory() });
    renderAt(<ServicePage />, at);
    const section = (await screen.findByRole("heading", { level: 2, name: "batch-tuned" })).closest(
      "section",
    ) as HTMLElement;
    const p99 = within(section)
      .getByRole("rowheader", { name: "p99 latency overhead" })
      .closest("tr") as HTMLElement;
    expect(within(p99).getByText("unknown")).toBeTruthy();
    expect(within(p99).getByText("no interval")).toBeTruthy();
    expect(within(p99).getByText("error")).toBeTruthy();
  });

  it("says how to start a history (none, or a 404), and shows the API's error", async () => {
    stubApi({ "GET /api/v1/history/services/go": { service: "go", configurations: [] } });
    renderAt(<ServicePage />, at);
    expect((await screen.findByText(/No check of go has been recorded yet/)).textContent).toContain(
      "tracetax check --service go",
    );
    cleanup();
    stubApi({ "GET /api/v1/history/services/go": () => json(404, { detail: "no check of go" }) });
    renderAt(<ServicePage />, at);
    expect(await screen.findByText("no check of go")).toBeTruthy();
    expect(screen.getByText(/No check of go has been recorded yet/)).toBeTruthy();
    cleanup();
    stubApi({
      "GET /api/v1/history/services/go": () => json(500, { detail: "database is locked" }),
    });
    renderAt(<ServicePage />, at);
    expect((await screen.findByRole("alert")).textContent).toContain("database is locked");
  });
});
