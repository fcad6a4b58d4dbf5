import { cleanup, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeEventSource } from "../../test/eventSource";
import {
  diagnostics,
  experiment,
  experimentLogs,
  flameGraph,
  metaWithGrafana,
  metaWithoutGrafana,
  otlpTrace,
  results,
  round,
  TRACE_ID,
} from "../../test/fixtures";
import { json, renderAt, stubApi } from "../../test/render";
import { ExperimentPage } from "./ExperimentPage";

// uPlot, ECharts and d3-flame-graph draw on canvas / measured SVG, which jsdom does not do;
// their data is tested on its own.
vi.mock("../../lib/charts/UPlotChart", () => ({
  UPlotChart: ({ data }: { data: unknown[] }) => (
    <div data-testid="uplot" data-columns={data.length} />
  ),
}));
vi.mock("../results/ExportBarChart", () => ({
  ExportBarChart: ({ bars }: { bars: unknown[] }) => (
    <div data-testid="export-bars" data-bars={bars.length} />
  ),
}));
vi.mock("../results/FlameGraphChart", () => ({
  FlameGraphChart: ({ label }: { label: string }) => <div data-testid="flame-chart">{label}</div>,
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

function finishedApi(extra: Record<string, unknown> = {}) {
  return stubApi({
    [`GET /api/v1/experiments/${id}`]: experiment(),
    [`GET /api/v1/experiments/${id}/results`]: results(),
    [`GET /api/v1/experiments/${id}/diagnostics`]: diagnostics(),
    [`GET /api/v1/experiments/${id}/stacks/batch-default`]: flameGraph(),
    [`GET /api/v1/experiments/${id}/logs`]: experimentLogs(),
    [`GET /api/v1/traces/${TRACE_ID}`]: otlpTrace(),
    "GET /api/v1/meta": metaWithoutGrafana,
    ...extra,
  });
}

describe("ExperimentPage", () => {
  it("shows the results of a finished experiment with the diagnostics' overhead", async () => {
    const failed = round("batch-default", 1, {
      status: "failed",
      error: "service exited with code 2",
      service_log_tail: "panic: boom",
      samples: null,
    });
    finishedApi({
      [`GET /api/v1/experiments/${id}/results`]: results({
        rounds: [...results().rounds, failed],
      }),
    });
    renderAt(<ExperimentPage />, at);
    const table = await screen.findByRole("table", { name: /Overhead is against the baseline/ });
    // The overhead comes with the diagnostics.
    const p50 = await within(table).findByRole("row", { name: /^p50 / });
    expect(within(p50).getByText("600 µs")).toBeTruthy();
    expect(within(p50).getByText("900 µs")).toBeTruthy();
    expect(within(p50).getByText("+50 %")).toBeTruthy();
    expect(within(p50).getByText("[+42 %, +58 %]")).toBeTruthy();
    expect(within(p50).getByText("significant")).toBeTruthy();
    expect(within(p50).getByText("[\u22126.4 %, +6.4 %]")).toBeTruthy();
    const cpu = within(table).getByRole("row", { name: /^CPU per request / });
    expect(within(cpu).getByText("an interval needs at least 2 rounds")).toBeTruthy();
    const dropped = within(table).getByRole("row", { name: /^Dropped spans / });
    expect(within(dropped).getByText("unknown")).toBeTruthy();
    const plot = screen.getByTestId("percentile-plot");
    expect(plot.getAttribute("data-series")).toBe("2");
    expect(plot.getAttribute("data-points")).toBe("10");
    expect(within(plot).getByTestId("uplot").getAttribute("data-columns")).toBe("3");
    expect(screen.getByTestId("cpu-chart")).toBeTruthy();
    expect(screen.getByText("service exited with code 2")).toBeTruthy();
    expect(screen.getByText("panic: boom")).toBeTruthy();
    expect(FakeEventSource.instances).toHaveLength(0);
  });

  it("shows the recommendation, where export runs, the ledger, a trace and the logs", async () => {
    finishedApi();
    renderAt(<ExperimentPage />, at);
    const recommendation = await screen.findByTestId("recommendation");
    expect(
      within(recommendation).getByText("Start from batch-default and apply: queue-too-small."),
    ).toBeTruthy();
    // The recommended setting, and the rule's own.
    expect(within(recommendation).getAllByText("OTEL_BSP_MAX_QUEUE_SIZE=8192")).toHaveLength(2);
    expect(within(recommendation).getByText("queue-too-small")).toBeTruthy();
    expect(within(recommendation).getByText("1,000 /s")).toBeTruthy();

    expect((await screen.findByTestId("export-bars")).getAttribute("data-bars")).toBe("2");
    expect((await screen.findByTestId("flame-chart")).textContent).toContain(
      "Flame graph of batch-default",
    );
    expect(screen.getByRole("link", { name: "Download folded stacks" }).getAttribute("href")).toBe(
      `/api/v1/experiments/${id}/stacks/batch-default?format=folded`,
    );

    const ledger = screen.getByRole("region", { name: "batch-default: Spans" });
    const stored = ledger.querySelector('[data-stage="stored"]') as HTMLElement;
    expect(stored.textContent).toContain("unknown");
    expect(stored.textContent).toContain("Tempo: HTTP 503");
    expect(stored.textContent).not.toMatch(/\b0\b/);

    const waterfall = await screen.findByTestId("waterfall");
    expect(waterfall.getAttribute("data-spans")).toBe("3");
    expect(within(waterfall).getByText("work.compute")).toBeTruthy();
    const logs = await screen.findByTestId("logs");
    expect(within(logs).getByText("work done")).toBeTruthy();
    // Without a Grafana, no Explore links.
    expect(screen.queryByRole("link", { name: "Open in Grafana Explore" })).toBeNull();
  });

  it("links the trace and the logs to Grafana Explore when there is a Grafana", async () => {
    finishedApi({ "GET /api/v1/meta": metaWithGrafana });
    renderAt(<ExperimentPage />, at);
    await screen.findByTestId("waterfall");
    await screen.findByTestId("logs");
    const links = await screen.findAllByRole("link", { name: "Open in Grafana Explore" });
    expect(links).toHaveLength(2);
    const [trace, logs] = links.map((link) => new URL(link.getAttribute("href") ?? ""));
    expect(trace.origin).toBe("http://grafana.test:3000");
    expect(JSON.parse(trace.searchParams.get("panes") ?? "").a.queries[0].query).toBe(TRACE_ID);
    expect(JSON.parse(logs.searchParams.get("panes") ?? "").a.datasource).toBe("loki");
  });

  it("keeps the measured values when the diagnostics fail, with the API's message", async () => {
    finishedApi({
      [`GET /api/v1/experiments/${id}/diagnostics`]: () =>
        json(500, { detail: "bootstrap failed: no rounds" }),
    });
    renderAt(<ExperimentPage />, at);
    const alert = await screen.findByText(/bootstrap failed: no rounds/);
    expect(alert.closest('[role="alert"]')).toBeTruthy();
    const table = screen.getByRole("table", { name: /Overhead is against the baseline/ });
    const p99 = within(table).getByRole("row", { name: /^p99 / });
    expect(within(p99).getByText("6.00 ms")).toBeTruthy();
    expect(within(table).queryByText("+50 %")).toBeNull();
    expect(screen.getAllByText(/the diagnostics could not be computed/).length).toBeGreaterThan(0);
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
    finishedApi({
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
