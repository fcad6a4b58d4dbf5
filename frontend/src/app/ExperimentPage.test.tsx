import { cleanup, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { drawnSeries } from "../test/chartStubs";
import { FakeEventSource } from "../test/eventSource";
import {
  costReport,
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
} from "../test/fixtures";
import { json, renderAt, stubApi } from "../test/render";
import { ExperimentPage } from "./ExperimentPage";

// The live view's event stream, pushed by hand (api/eventStream.ts is tested on its own).
vi.mock("../api/eventStream", async (importOriginal) => {
  const { FakeEventSource } = await import("../test/eventSource");
  return {
    ...(await importOriginal<typeof import("../api/eventStream")>()),
    openEventStream: (url: string) => new FakeEventSource(url),
  };
});

// ECharts and d3-flame-graph draw measured SVG, which jsdom does not do; their data is tested
// on its own.
vi.mock("../lib/charts/EChart", () => import("../test/chartStubs"));
vi.mock("../features/results/ExportBarChart", () => import("../test/chartStubs"));
vi.mock("../features/results/CostChart", () => import("../test/chartStubs"));
vi.mock("../features/results/FlameGraphChart", () => import("../test/chartStubs"));

beforeEach(() => {
  FakeEventSource.instances = [];
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
    [`GET /api/v1/experiments/${id}/cost`]: costReport(),
    // The Collector pipeline experiments the cost panel offers to size the Collector from.
    "GET /api/v1/experiments": [],
    ...extra,
  });
}

describe("ExperimentPage", () => {
  it("shows the results of a finished experiment with the diagnostics' changes", async () => {
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
    const table = await screen.findByRole("table", { name: /paired round by round/ });
    // The change comes with the diagnostics: absolute with its interval, relative, direction.
    const p50 = await within(table).findByRole("row", { name: /^p50 / });
    expect(within(p50).getByText("600 µs")).toBeTruthy();
    expect(within(p50).getByText("900 µs")).toBeTruthy();
    const cell = within(p50).getByText("900 µs").closest("td") as HTMLElement;
    expect(cell.textContent).toContain("+300 µs (+249 to +351 µs)");
    expect(cell.textContent).toContain("+50% · worse");
    expect(cell.getAttribute("data-direction")).toBe("worse");
    // The noise floor: ± relative and absolute, with its pairs.
    const floor = within(p50).getByTestId("noise-floor");
    expect(floor.textContent).toContain("±6.4%");
    expect(floor.textContent).toContain("±38.4 µs");
    expect(floor.textContent).toContain("at 5 paired rounds");
    const throughput = within(table).getByRole("row", { name: /^Max throughput / });
    expect(within(throughput).getByTestId("noise-floor").textContent).toContain("unknown");
    expect(throughput.textContent).toContain("\u221297% · worse");
    const cpu = within(table).getByRole("row", { name: /^CPU per request / });
    expect(within(cpu).getByText("an interval needs at least 2 paired rounds")).toBeTruthy();
    const dropped = within(table).getByRole("row", { name: /^Dropped spans / });
    expect(within(dropped).getByText("unknown")).toBeTruthy();
    expect(screen.queryByTestId("flagged-rounds")).toBeNull();
    const plot = screen.getByTestId("percentile-plot");
    expect(plot.getAttribute("data-series")).toBe("2");
    expect(plot.getAttribute("data-points")).toBe("10");
    expect(drawnSeries(within(plot).getByTestId("echart")).map((s) => s.points.length)).toEqual([
      5, 5,
    ]);
    expect(screen.getByTestId("cpu-chart")).toBeTruthy();
    expect(screen.getByText("service exited with code 2")).toBeTruthy();
    expect(screen.getByText("panic: boom")).toBeTruthy();
    expect(FakeEventSource.instances).toHaveLength(0);
  });

  it("says in its header how long the side-by-side phase ran, and with how many instances", async () => {
    // Unset, the phase is as long as the measured one up to the backend's cap (10 s).
    const spec = experiment().spec as Record<string, unknown>;
    const load = { ...(spec.load as Record<string, unknown>), duration_s: 15 };
    finishedApi({
      [`GET /api/v1/experiments/${id}`]: experiment({
        spec: { ...spec, load: { ...load, side_by_side_instances: 2 } },
      }),
    });
    renderAt(<ExperimentPage />, at);
    expect(
      await screen.findByText(/15 s measured, .*, 10 s side by side, 2 instances each$/),
    ).toBeTruthy();
  });

  it("warns of flagged rounds, and says per round who interfered, how it stopped and what limited it", async () => {
    const sigterm =
      "terminated by SIGTERM's default action (no signal handler): the SDK had no chance to flush, so telemetry it still held may be missing from the ledger";
    finishedApi({
      [`GET /api/v1/experiments/${id}/diagnostics`]: diagnostics({
        flagged_rounds: ["batch-default round 0"],
      }),
      [`GET /api/v1/experiments/${id}/results`]: results({
        rounds: [
          round("none", 0, { limited_by: "service" }),
          round("batch-default", 0, {
            order_index: 1,
            exit_code: -15,
            shutdown: { exit_code: -15, clean: false, flushed: false, note: sigterm },
            isolation: {
              open: {
                flagged: true,
                reasons: ["other processes used 1.20s of CPU on the service's cores"],
                foreign_cpu_s: 1.2,
                service_run_delay_ms: 812.5,
                foreign_tasks: [{ pid: 4242, comm: "stress", cpu_s: 1.18, kernel_thread: false }],
              },
              closed: { flagged: false, reasons: [], foreign_tasks: [] },
            },
            closed_phase: {
              limited_by: "load generator",
              limited_by_reason: "the load generator's cores were 97% busy",
            },
            limited_by: "load generator",
          }),
        ],
      }),
    });
    renderAt(<ExperimentPage />, at);
    const warning = await screen.findByTestId("flagged-rounds");
    expect(warning.textContent).toContain(
      "other processes ran on the service's cores during batch-default round 0",
    );
    expect(warning.textContent).toContain("kept but its figures are suspect");
    // The comparison says what limited the max throughput when it was not the service.
    const table = screen.getByRole("table", { name: /paired round by round/ });
    const throughput = within(table).getByRole("row", { name: /^Max throughput / });
    expect(
      within(throughput)
        .getAllByTestId("limited-by")
        .map((e) => e.textContent),
    ).toEqual(["limited by: load generator"]);
    // The rounds table: the isolation flag with its reasons, the shutdown note, the limiter.
    const rounds = document.querySelector("table.rounds") as HTMLElement;
    const row = rounds.querySelector('tr[data-round="batch-default-0"]') as HTMLElement;
    expect(row.textContent).toContain("flagged: measured phase");
    expect(row.textContent).toContain("limited by: load generator");
    expect(row.textContent).toContain("not clean");
    const detail = row.nextElementSibling as HTMLElement;
    expect(within(detail).getByTestId("round-isolation").textContent).toContain(
      "other processes used 1.20s of CPU on the service's cores",
    );
    expect(within(detail).getByTestId("round-isolation").textContent).toContain(
      "stress (pid 4242, 1.18 s)",
    );
    expect(within(detail).getByTestId("round-shutdown").textContent).toContain(sigterm);
    const baselineRow = rounds.querySelector('tr[data-round="none-0"]') as HTMLElement;
    expect(baselineRow.textContent).toContain("limited by: service");
  });

  it("warns of a round during which a component of the stack was down", async () => {
    finishedApi({
      [`GET /api/v1/experiments/${id}/results`]: results({
        rounds: [
          round("none", 0),
          round("batch-default", 1, {
            order_index: 1,
            stack_health: {
              flagged: true,
              down: ["collector", "tempo"],
              before: { tempo: "HTTP 503" },
              after: { collector: "connection refused", tempo: "HTTP 503" },
            },
          }),
        ],
      }),
    });
    renderAt(<ExperimentPage />, at);
    const banner = await screen.findByTestId("stack-down-rounds");
    expect(within(banner).getByRole("listitem").textContent).toBe(
      "batch-default round 2: collector, tempo were down: its Collector and stored spans stages read unknown.",
    );
    expect(screen.getByTestId("round-stack-health").textContent).toContain(
      "tempo (before and after): HTTP 503",
    );
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
    // What the recommended configuration costs at the default inputs.
    expect((await screen.findByTestId("cost-recommended")).textContent).toBe(
      costReport().recommended?.summary,
    );

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
    const table = screen.getByRole("table", { name: /paired round by round/ });
    const p99 = within(table).getByRole("row", { name: /^p99 / });
    expect(within(p99).getByText("6.00 ms")).toBeTruthy();
    expect(table.textContent).not.toContain("+50%");
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
