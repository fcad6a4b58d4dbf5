import { cleanup, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeEventSource } from "../../test/eventSource";
import { experiment, results, round } from "../../test/fixtures";
import { json, renderAt, stubApi } from "../../test/render";
import { ExperimentPage } from "./ExperimentPage";

// uPlot draws on a canvas, which jsdom does not have; the chart data is tested on its own.
vi.mock("../../lib/charts/UPlotChart", () => ({
  UPlotChart: ({ data }: { data: unknown[] }) => (
    <div data-testid="uplot" data-columns={data.length} />
  ),
}));

beforeEach(() => {
  FakeEventSource.instances = [];
  vi.stubGlobal("EventSource", FakeEventSource);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const id = experiment().id;
const at = { path: `/experiments/${id}`, pattern: "/experiments/:id" };

describe("ExperimentPage", () => {
  it("shows the results of a finished experiment", async () => {
    const failed = round("batch-default", 1, {
      status: "failed",
      error: "service exited with code 2",
      service_log_tail: "panic: boom",
      samples: null,
    });
    stubApi({
      [`GET /api/v1/experiments/${id}`]: experiment(),
      [`GET /api/v1/experiments/${id}/results`]: results({
        rounds: [...results().rounds, failed],
      }),
    });
    renderAt(<ExperimentPage />, at);
    const table = await screen.findByRole("table", {
      name: /Differences are against the baseline/,
    });
    const p99 = within(table).getByRole("row", { name: /^p99 / });
    expect(within(p99).getByText("4.00 ms")).toBeTruthy();
    expect(within(p99).getByText("6.00 ms")).toBeTruthy();
    expect(within(p99).getByText("+50 %")).toBeTruthy();
    expect(within(table).getAllByText("unknown")).toHaveLength(2);
    const plot = screen.getByTestId("percentile-plot");
    expect(plot.getAttribute("data-series")).toBe("2");
    expect(plot.getAttribute("data-points")).toBe("10");
    expect(within(plot).getByTestId("uplot").getAttribute("data-columns")).toBe("3");
    expect(screen.getByTestId("cpu-chart")).toBeTruthy();
    expect(screen.getByText("service exited with code 2")).toBeTruthy();
    expect(screen.getByText("panic: boom")).toBeTruthy();
    expect(FakeEventSource.instances).toHaveLength(0);
  });

  it("shows live progress while the experiment runs", async () => {
    stubApi({
      [`GET /api/v1/experiments/${id}`]: experiment({ status: "running", finished_at: null }),
    });
    renderAt(<ExperimentPage />, at);
    expect(await screen.findByRole("heading", { name: "Live progress" })).toBeTruthy();
    expect(FakeEventSource.latest().url).toContain(id);
    expect(screen.getByRole("button", { name: "Cancel experiment" })).toBeTruthy();
  });

  it("says when nothing completed", async () => {
    stubApi({
      [`GET /api/v1/experiments/${id}`]: experiment({
        status: "failed",
        error: "no round completed for: none",
      }),
      [`GET /api/v1/experiments/${id}/results`]: results({ status: "failed", configurations: [] }),
    });
    renderAt(<ExperimentPage />, at);
    expect(await screen.findByText(/No configuration completed a round/)).toBeTruthy();
    expect(screen.getByText("no round completed for: none")).toBeTruthy();
  });

  it("shows the API's 404 detail for an unknown experiment", async () => {
    stubApi({
      [`GET /api/v1/experiments/${id}`]: () => json(404, { detail: `no experiment ${id}` }),
    });
    renderAt(<ExperimentPage />, at);
    expect((await screen.findByRole("alert")).textContent).toContain(`no experiment ${id}`);
  });
});
