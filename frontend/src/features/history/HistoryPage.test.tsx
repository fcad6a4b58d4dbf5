import { cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { services } from "../../test/fixtures";
import { historySeries, serviceHistory } from "../../test/historyFixtures";
import { json, renderAt, stubApi } from "../../test/render";
import { HistoryPage } from "./HistoryPage";

// ECharts does not draw in jsdom: the figure (its name, caption) is real, the chart a stand-in
// that says where it marks lines (historyChart.test.ts tests the option itself).
vi.mock("../../lib/charts/EChart", () => import("../../test/chartStubs"));

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const at = (query: string) => ({ path: `/history${query}`, pattern: "/history" });

/** Answers GET /api/v1/history with the fixture series of the metric asked for. */
function historyRoute(extra: Parameters<typeof historySeries>[1] = {}) {
  return (request: Request) => {
    const metric = new URL(request.url).searchParams.get("metric") ?? "p99";
    return json(200, historySeries(metric, extra));
  };
}

describe("HistoryPage", () => {
  it("draws one chart per metric, the change point named at its commit", async () => {
    const calls = stubApi({
      "GET /api/v1/services": services,
      "GET /api/v1/history/services/go": serviceHistory(),
      "GET /api/v1/history": historyRoute(),
    });
    renderAt(<HistoryPage />, at("?service=go&configuration=batch-default&branch=main"));
    expect(screen.getByRole("heading", { level: 1, name: "History" })).toBeTruthy();
    for (const name of [
      "p50 latency overhead",
      "p99 latency overhead",
      "CPU per request overhead",
      "OTLP bytes per request",
      "Δ$/month",
    ]) {
      expect(await screen.findByRole("heading", { level: 2, name })).toBeTruthy();
    }
    const p99 = await screen.findByRole("figure", {
      name: "p99 latency overhead by commit, with its 95% interval",
    });
    expect(p99.getAttribute("data-bars")).toBe("12");
    expect(within(p99).getByTestId("echart").getAttribute("data-marks")).toBe(
      JSON.stringify(["change point", "budget"]),
    );
    const changes = screen.getByRole("list", { name: "Change points of the p99 latency overhead" });
    expect(within(changes).getByText(/Change point at/).textContent).toContain(
      "+15% [+13%, +17%] from 06a1b2c",
    );
    expect(within(changes).getByRole("link", { name: "its check" }).getAttribute("href")).toBe(
      "/checks/check-06-0000-0000-0000-000000000000",
    );
    const asked = calls.filter((c) => c.url.pathname === "/api/v1/history");
    expect(asked.map((c) => c.url.searchParams.get("metric")).sort()).toEqual([
      "bytes_per_request",
      "cpu_per_request_us",
      "p50",
      "p99",
      "usd_per_month",
    ]);
    expect(asked.every((c) => c.url.searchParams.get("branch") === "main")).toBe(true);
    expect(asked.every((c) => c.url.searchParams.get("machine") === null)).toBe(true);
  });

  it("lists every point with its commit, verdict and check", async () => {
    stubApi({
      "GET /api/v1/services": services,
      "GET /api/v1/history/services/go": serviceHistory(),
      "GET /api/v1/history": historyRoute(),
    });
    renderAt(<HistoryPage />, at("?service=go&configuration=batch-default"));
    const section = (await screen.findByRole("heading", { name: "p99 latency overhead" })).closest(
      "section",
    ) as HTMLElement;
    const table = await within(section).findByRole("table");
    const row = within(table)
      .getByRole("rowheader", { name: "06a1b2c" })
      .closest("tr") as HTMLElement;
    expect(within(row).getByText("fail")).toBeTruthy();
    expect(within(row).getByRole("link", { name: "check-06" }).getAttribute("href")).toBe(
      "/checks/check-06-0000-0000-0000-000000000000",
    );
    expect(within(row).getByRole("link", { name: "run" }).getAttribute("href")).toContain(
      "/actions/runs/1006",
    );
  });

  it("filters by branch and machine from the form, into the URL", async () => {
    const user = userEvent.setup();
    stubApi({
      "GET /api/v1/services": services,
      "GET /api/v1/history/services/go": serviceHistory(),
      "GET /api/v1/history": historyRoute(),
    });
    const { router } = renderAt(<HistoryPage />, at("?service=go&configuration=batch-default"));
    await screen.findAllByRole("figure");
    expect((screen.getByLabelText("Service") as HTMLSelectElement).value).toBe("go");
    expect((screen.getByLabelText("Configuration") as HTMLSelectElement).value).toBe(
      "batch-default",
    );
    await user.type(screen.getByLabelText("Branch"), "main");
    await user.type(screen.getByLabelText("Machine fingerprint"), "m-3f9a");
    await user.click(screen.getByRole("button", { name: "Apply filters" }));
    const query = new URLSearchParams(router.state.location.search);
    expect(query.get("branch")).toBe("main");
    expect(query.get("machine")).toBe("m-3f9a");
    expect(query.get("configuration")).toBe("batch-default");
  });

  it("offers the service's configurations, and says what to do before one is chosen", async () => {
    const user = userEvent.setup();
    stubApi({
      "GET /api/v1/services": services,
      "GET /api/v1/history/services/go": serviceHistory(),
      "GET /api/v1/history": historyRoute(),
    });
    const { router } = renderAt(<HistoryPage />, at("?service=go"));
    expect(await screen.findByText(/Choose one of go's configurations/)).toBeTruthy();
    await user.selectOptions(screen.getByLabelText("Configuration"), "batch-tuned");
    expect(new URLSearchParams(router.state.location.search).get("configuration")).toBe(
      "batch-tuned",
    );
  });

  it("says how to start a history when there is none", async () => {
    stubApi({
      "GET /api/v1/services": services,
      "GET /api/v1/history/services/go": serviceHistory(),
      "GET /api/v1/history": historyRoute({ points: [], change_points: [] }),
    });
    renderAt(<HistoryPage />, at("?service=go&configuration=batch-default&branch=main"));
    const empty = await screen.findAllByText(/has been recorded yet/);
    expect(empty).toHaveLength(5);
    expect(empty[0].textContent).toContain(
      "tracetax check --service go --candidate batch-default --branch main",
    );
  });

  it("says once how to start a history when the API has none (404)", async () => {
    stubApi({
      "GET /api/v1/services": services,
      "GET /api/v1/history/services/go": serviceHistory(),
      "GET /api/v1/history": () =>
        json(404, { detail: "no completed check of go's batch-default on branch 'main'" }),
    });
    renderAt(<HistoryPage />, at("?service=go&configuration=batch-default&branch=main"));
    expect(
      await screen.findByText("no completed check of go's batch-default on branch 'main'"),
    ).toBeTruthy();
    expect(screen.getAllByText(/has been recorded yet/)).toHaveLength(1);
    expect(screen.queryByRole("alert")).toBeNull();
    expect(screen.queryByRole("heading", { level: 2 })).toBeNull();
  });

  it("shows the API's error beside the chart", async () => {
    stubApi({
      "GET /api/v1/services": services,
      "GET /api/v1/history/services/go": serviceHistory(),
      "GET /api/v1/history": () =>
        json(422, { detail: "unknown machine fingerprint 'zz': pick one a check recorded" }),
    });
    renderAt(<HistoryPage />, at("?service=go&configuration=batch-default&machine=zz"));
    const alerts = await screen.findAllByRole("alert");
    expect(alerts[0].textContent).toContain("unknown machine fingerprint 'zz'");
  });

  it("asks for a service first", async () => {
    stubApi({ "GET /api/v1/services": services });
    renderAt(<HistoryPage />, at(""));
    expect(await screen.findByText(/Choose a service and one of its configurations/)).toBeTruthy();
  });
});
