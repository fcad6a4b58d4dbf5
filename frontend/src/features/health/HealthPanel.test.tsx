import { cleanup, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { json, renderAt, stubApi } from "../../test/render";
import { HealthPanel } from "./HealthPanel";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("HealthPanel", () => {
  it("lists a not-ready component with its reason from a 503 report", async () => {
    stubApi({
      "GET /api/health": () =>
        json(503, {
          status: "degraded",
          components: [
            {
              name: "tempo",
              url: "http://127.0.0.1:3200",
              ready: true,
              version: "2.6.0",
              detail: "",
            },
            {
              name: "loki",
              url: "http://127.0.0.1:3100",
              ready: false,
              version: null,
              detail: "ConnectError",
            },
          ],
        }),
    });
    renderAt(<HealthPanel />);
    expect(await screen.findByText("Some components are not ready")).toBeTruthy();
    expect(screen.getByText("not ready: ConnectError")).toBeTruthy();
    expect(screen.getByText("2.6.0")).toBeTruthy();
  });

  it("shows the API's detail when the request fails", async () => {
    stubApi({ "GET /api/health": () => json(500, { detail: "database is locked" }) });
    renderAt(<HealthPanel />);
    expect((await screen.findByRole("alert")).textContent).toContain("database is locked");
  });
});
