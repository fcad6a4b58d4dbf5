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

  it("shows what the native stack's watcher restarted, per component", async () => {
    stubApi({
      "GET /api/health": () =>
        json(200, {
          status: "ok",
          components: [
            {
              name: "collector",
              url: "http://127.0.0.1:13133/",
              ready: true,
              version: "0.160.0",
              detail: "",
            },
            {
              name: "tempo",
              url: "http://127.0.0.1:3200",
              ready: true,
              version: "2.6.0",
              detail: "",
            },
          ],
          supervision: {
            watching: true,
            detail: "a component that exits is started again (with backoff)",
            components: [
              {
                name: "collector",
                restarts: 2,
                last_exit: "killed by SIGKILL",
                last_exit_at: "2026-11-29T08:12:03Z",
                state: "running",
                last_error: null,
              },
              {
                name: "tempo",
                restarts: 0,
                last_exit: null,
                last_exit_at: null,
                state: "running",
                last_error: null,
              },
            ],
          },
        }),
    });
    renderAt(<HealthPanel />);
    expect(await screen.findByText("All components ready")).toBeTruthy();
    expect(screen.getByRole("columnheader", { name: "Restarts" })).toBeTruthy();
    expect(screen.getByText("2 (last: killed by SIGKILL)")).toBeTruthy();
    expect(screen.getByText("0")).toBeTruthy();
    expect(screen.getByText(/Stack watcher: a component that exits is started again/)).toBeTruthy();
  });

  it("shows the API's detail when the request fails", async () => {
    stubApi({ "GET /api/health": () => json(500, { detail: "database is locked" }) });
    renderAt(<HealthPanel />);
    expect((await screen.findByRole("alert")).textContent).toContain("database is locked");
  });
});
