import { cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RoundRaw } from "../../api/types";
import { ExperimentPage } from "../../app/ExperimentPage";
import { drawnSeries } from "../../test/chartStubs";
import { FakeEventSource } from "../../test/eventSource";
import { metaWithGrafana, metaWithoutGrafana } from "../../test/fixtures";
import {
  PIPELINE_EXPERIMENT_ID as id,
  pipelineDiagnostics,
  pipelineExperiment,
  pipelineRecommendation,
  pipelineResults,
} from "../../test/pipelineFixtures";
import { json, renderAt, stubApi } from "../../test/render";

// The live view's event stream, pushed by hand (api/eventStream.ts is tested on its own).
vi.mock("../../api/eventStream", async (importOriginal) => {
  const { FakeEventSource } = await import("../../test/eventSource");
  return {
    ...(await importOriginal<typeof import("../../api/eventStream")>()),
    openEventStream: (url: string) => new FakeEventSource(url),
  };
});

// ECharts draws measured SVG, which jsdom does not do; the chart's data is tested on its own.
vi.mock("../../lib/charts/EChart", () => import("../../test/chartStubs"));

beforeEach(() => {
  FakeEventSource.instances = [];
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const at = { path: `/experiments/${id}`, pattern: "/experiments/:id" };

function finishedApi(extra: Record<string, unknown> = {}) {
  return stubApi({
    [`GET /api/v1/experiments/${id}`]: pipelineExperiment(),
    [`GET /api/v1/experiments/${id}/results`]: pipelineResults(),
    [`GET /api/v1/experiments/${id}/diagnostics`]: pipelineDiagnostics(),
    "GET /api/v1/meta": metaWithoutGrafana,
    ...extra,
  });
}

async function comparison() {
  return screen.findByRole("table", { name: /baseline pipeline/ });
}

function metricRow(table: HTMLElement, key: string): HTMLElement {
  return table.querySelector(`tr[data-metric="${key}"]`) as HTMLElement;
}

describe("a Collector pipeline experiment's page", () => {
  it("shows the pipeline view, never the service's", async () => {
    const calls = finishedApi();
    renderAt(<ExperimentPage />, at);
    expect(await screen.findByTestId("pipeline-results")).toBeTruthy();
    await comparison();
    // The header says what was measured, with the load telemetrygen sent.
    expect(screen.getByText("Collector pipeline")).toBeTruthy();
    expect(
      screen.getByText("1,000 spans/s in traces of 5 spans, 1 s warm-up, 3 s measured, 4 s drain"),
    ).toBeTruthy();
    // Nothing of a service's results: latency, where export runs, logs, recommendation rules.
    expect(screen.queryByRole("heading", { name: /Latency/ })).toBeNull();
    expect(screen.queryByRole("heading", { name: "Where export runs" })).toBeNull();
    expect(screen.queryByRole("heading", { name: "Recent logs" })).toBeNull();
    expect(screen.queryByTestId("percentile-plot")).toBeNull();
    expect(screen.queryByTestId("recommendation")).toBeNull();
    expect(screen.queryByTestId("cost")).toBeNull();
    expect(calls.some((c) => c.url.pathname.includes("/stacks/"))).toBe(false);
    expect(calls.some((c) => c.url.pathname.endsWith("/cost"))).toBe(false);
    expect(calls.some((c) => c.url.pathname.endsWith("/logs"))).toBe(false);
    // Without a ramp, no such section or chart.
    expect(screen.queryByRole("heading", { name: /Ramp/ })).toBeNull();
    expect(screen.queryByTestId("ramp-chart")).toBeNull();
    // The recommendation, sized for the rate the experiment sent.
    const recommendation = await screen.findByTestId("pipeline-recommendation");
    expect(within(recommendation).getByRole("table").textContent).toContain(
      "Sized for 1,000 spans/s",
    );
  });

  it("puts the variants side by side, each change in the diagnostics' words", async () => {
    finishedApi();
    renderAt(<ExperimentPage />, at);
    const table = await comparison();
    const headers = within(table)
      .getAllByRole("columnheader")
      .map((th) => th.textContent);
    expect(headers.slice(1, 5).map((h) => h?.split("1 round")[0])).toEqual([
      "passthroughbaseline",
      "batch-default",
      "loadbalancing",
      "tail-sampling",
    ]);
    const cpu = metricRow(table, "cpu_cores");
    expect(within(cpu).getByText("7.80 millicores")).toBeTruthy();
    const batch = within(cpu).getByText("9.00 millicores").closest("td") as HTMLElement;
    expect(batch.textContent).toContain(
      "+1.2 millicores Collector CPU, +15.4% \u2014 no significant change",
    );
    expect(batch.getAttribute("data-direction")).toBe("unchanged");
    expect(batch.textContent).toContain("an interval needs at least 2 paired rounds");
    // The noise floor, unknown with why at one round.
    expect(within(cpu).getByTestId("noise-floor").textContent).toContain("unknown");
    expect(within(cpu).getByTestId("noise-floor").textContent).toContain(
      "needs a second configuration",
    );
    // Every figure the brief names.
    expect(metricRow(table, "spans_per_s").textContent).toContain("1,144 spans/s");
    expect(metricRow(table, "spans_per_s_per_core").textContent).toContain("146,493 spans/s");
    expect(metricRow(table, "cores_per_10k_spans_s").textContent).toContain("68.3 millicores");
    expect(metricRow(table, "rss_max_bytes").textContent).toContain("54.3 MiB");
    expect(metricRow(table, "rss_steady_bytes").textContent).toContain("53.8 MiB");
    expect(metricRow(table, "downstream_cpu_cores").textContent).toContain("14.8 millicores");
    expect(metricRow(table, "kept_ratio").textContent).toContain("24.8 %");
    expect(metricRow(table, "generated").textContent).toContain("4,020");
    // Span end to arrival downstream, from the diagnostics' Tempo read-back.
    const delay = metricRow(table, "delay_p50_us");
    expect(delay.textContent).toContain("512 ms");
    expect((delay.querySelectorAll("td")[3] as HTMLElement).textContent).toContain("unknown");
    // tail-sampling's lost spans are unknown: never 0, and its change is unknown too.
    const lost = metricRow(table, "lost");
    const tail = lost.querySelectorAll("td")[3] as HTMLElement;
    expect(tail.textContent).toContain("unknown");
    expect(tail.textContent).not.toMatch(/^0/);
    expect(tail.getAttribute("data-direction")).toBe("unknown");
    expect(screen.queryByTestId("flagged-rounds")).toBeNull();
    expect(screen.queryByTestId("saturated-rounds")).toBeNull();
  });

  it("warns of flagged and saturated rounds", async () => {
    finishedApi({
      [`GET /api/v1/experiments/${id}/diagnostics`]: pipelineDiagnostics({
        flagged_rounds: ["loadbalancing round 0"],
        saturated_rounds: ["tail-sampling round 0"],
      }),
    });
    renderAt(<ExperimentPage />, at);
    const flagged = await screen.findByTestId("flagged-rounds");
    expect(flagged.textContent).toContain(
      "other processes ran on the lab Collector's cores during loadbalancing round 0",
    );
    const saturated = screen.getByTestId("saturated-rounds");
    expect(saturated.textContent).toContain("telemetrygen delivered under 95%");
    expect(saturated.textContent).toContain("tail-sampling round 0");
  });

  it("warns of a round during which the stack's Collector was down", async () => {
    const results = pipelineResults();
    finishedApi({
      [`GET /api/v1/experiments/${id}/results`]: {
        ...results,
        rounds: results.rounds.map((r, i) =>
          i === 0
            ? {
                ...r,
                stack_health: {
                  flagged: true,
                  down: ["collector"],
                  before: null,
                  after: { collector: "connection refused" },
                },
              }
            : r,
        ),
      },
    });
    renderAt(<ExperimentPage />, at);
    const banner = await screen.findByTestId("stack-down-rounds");
    const label = `${results.rounds[0].configuration} round ${results.rounds[0].round_index + 1}`;
    expect(within(banner).getByRole("listitem").textContent).toContain(
      `${label}: collector was down: its stored stage may be short`,
    );
    expect(screen.getByTestId("round-stack-health").textContent).toContain(
      "collector (after): connection refused",
    );
  });

  it("draws the ledger of each round per stage, per downstream, into Tempo", async () => {
    finishedApi();
    renderAt(<ExperimentPage />, at);
    const region = await screen.findByRole("region", { name: "loadbalancing, round 1: Spans" });
    const flow = within(region).getByRole("list", {
      name: "Spans, from generated to stored in Tempo",
    });
    const arrived = flow.querySelector('[data-stage="downstream_accepted"]') as HTMLElement;
    expect(arrived.textContent).toContain("Arrived downstream4,020");
    expect(arrived.textContent).toContain("downstream-1: 1,960");
    expect(arrived.textContent).toContain("downstream-2: 2,060");
    const stored = flow.querySelector('[data-stage="stored"]') as HTMLElement;
    expect(stored.textContent).toContain("Stored in Tempo4,020");
    expect(stored.textContent).toContain("complete traces: 804 of 804 checked");
    expect(stored.textContent).toContain("whole on one downstream: 804 of 804");
    const failed = flow.querySelector('[data-stage="exporter_send_failed"]') as HTMLElement;
    expect(failed.textContent).toContain("unknown failed to send");
    expect(within(region).getByText("none lost")).toBeTruthy();
    const tail = screen.getByRole("region", { name: "tail-sampling, round 1: Spans" });
    expect(within(tail).getByText("lost unknown, 24.8 % kept")).toBeTruthy();
    // Without a Grafana the sample trace ids are plain text.
    expect(within(region).getByText("8a8b2610d8c21c95ba2371b116df112d").tagName).toBe("CODE");
  });

  it("keeps a round's Tempo side unknown when Tempo did not answer, and reads it again", async () => {
    const diagnostics = pipelineDiagnostics();
    const failing = {
      ...diagnostics,
      ledger: diagnostics.ledger.map((entry) =>
        entry.configuration === "passthrough" ? { ...entry, stored: { error: "HTTP 503" } } : entry,
      ),
    };
    let reads = 0;
    const calls = finishedApi({
      [`GET /api/v1/experiments/${id}/diagnostics`]: () => {
        reads += 1;
        return json(200, reads === 1 ? failing : diagnostics);
      },
      [`POST /api/v1/experiments/${id}/ledger`]: [],
    });
    renderAt(<ExperimentPage />, at);
    const region = await screen.findByRole("region", { name: "passthrough, round 1: Spans" });
    const stored = region.querySelector('[data-stage="stored"]') as HTMLElement;
    expect(stored.textContent).toContain("unknown");
    expect(stored.textContent).toContain("Tempo: HTTP 503");
    expect(screen.getByText(/Once it is back, read it again/)).toBeTruthy();
    screen.getByRole("button", { name: "Read Tempo again" }).click();
    expect(await screen.findByText("Read again.")).toBeTruthy();
    expect(calls.some((c) => c.method === "POST" && c.url.pathname.endsWith("/ledger"))).toBe(true);
    await screen.findByText((_, element) =>
      Boolean(
        element?.getAttribute("data-stage") === "stored" &&
          element.closest('[aria-label="passthrough, round 1: Spans"]') &&
          element.textContent?.startsWith("Stored in Tempo4,000"),
      ),
    );
  });

  it("links the sample traces to Grafana Explore when there is a Grafana", async () => {
    finishedApi({ "GET /api/v1/meta": metaWithGrafana });
    renderAt(<ExperimentPage />, at);
    const region = await screen.findByRole("region", { name: "loadbalancing, round 1: Spans" });
    const link = await within(region).findByRole("link", {
      name: "8a8b2610d8c21c95ba2371b116df112d",
    });
    const url = new URL(link.getAttribute("href") ?? "");
    expect(url.origin).toBe("http://grafana.test:3000");
    expect(JSON.parse(url.searchParams.get("panes") ?? "").a.queries[0].query).toBe(
      "8a8b2610d8c21c95ba2371b116df112d",
    );
    // The sample trace panel has its Explore link too.
    expect(screen.getAllByRole("link", { name: "Open in Grafana Explore" })).toHaveLength(1);
  });

  it("plots the lab Collector's memory over time per variant", async () => {
    finishedApi();
    renderAt(<ExperimentPage />, at);
    const chart = await screen.findByTestId("memory-chart");
    // A line per variant, each with the 13 samples of its one round.
    expect(drawnSeries(within(chart).getByTestId("echart"))).toHaveLength(4);
    expect(Number(chart.getAttribute("data-points"))).toBeGreaterThanOrEqual(4 * 12);
  });

  it("shows the ramp and the recommendation when the API has them", async () => {
    const results = pipelineResults();
    const closed = {
      ramp: [
        { spans_per_s: 2000, achieved_spans_per_s: 1998, cpu_cores: 0.02, sustained: true },
        {
          spans_per_s: 4000,
          achieved_spans_per_s: 3100,
          cpu_cores: 0.9,
          refused: 120,
          sustained: false,
          why: "the receiver refused 120 spans",
        },
      ],
      max_sustainable_spans_per_s: 2000,
      limited_by: "receiver",
      why: "the receiver refused 120 spans",
    };
    // The aggregates' curve of the same ramp (engine/aggregate.py `_curve`).
    const curve = closed.ramp.map((step) => ({
      spans_per_s: step.spans_per_s,
      achieved_spans_per_s: step.achieved_spans_per_s,
      cpu_cores: step.cpu_cores,
      rss_max_bytes: 60_000_000,
      sustained: step.sustained,
      why: step.why ?? null,
    }));
    finishedApi({
      [`GET /api/v1/experiments/${id}/results`]: {
        ...results,
        configurations: results.configurations.map((c) => ({
          ...c,
          max_sustainable_spans_per_s: c.configuration === "passthrough" ? 2000 : null,
          ramp_limited_by: c.configuration === "passthrough" ? ["receiver"] : [],
          per_round: c.per_round.map((r) => ({
            ...r,
            ramp: c.configuration === "passthrough" ? curve : [],
          })),
        })),
        rounds: results.rounds.map(
          (r): RoundRaw => (r.configuration === "passthrough" ? { ...r, closed_phase: closed } : r),
        ),
      },
      [`GET /api/v1/experiments/${id}/diagnostics`]: {
        ...pipelineDiagnostics(),
        recommendation: {
          target_spans_per_s: 1000,
          sizing: [
            {
              variant: "batch-default",
              cores: 0.0078,
              cores_source: "scaled",
              peak_rss_bytes: 57372672,
              memory_source: "peak",
              memory_limiter: { limit_mib: 69, spike_limit_mib: 14 },
              container_memory_mib: 87,
              keeps_up: true,
            },
          ],
          batch: "batch-tuned",
          trace_holding: null,
          evidence: ["batch-default: 7.8 millicores at 1,000 spans/s"],
        },
      },
    });
    renderAt(<ExperimentPage />, at);
    const ramp = await screen.findByRole("region", { name: "Ramp of passthrough, round 1" });
    expect(within(ramp).getByText(/up to 2,000 spans\/s/)).toBeTruthy();
    expect(within(ramp).getByText(/Limited by: receiver/)).toBeTruthy();
    expect(within(ramp).getAllByRole("row")).toHaveLength(3);
    expect(within(ramp).getByText("not kept up")).toBeTruthy();
    // CPU against the achieved rate: passthrough's line, and the step it did not keep up with.
    const chart = screen.getByTestId("ramp-chart");
    expect(chart.getAttribute("data-points")).toBe("2");
    expect(drawnSeries(within(chart).getByTestId("echart")).map((s) => s.name)).toEqual([
      "passthrough",
      "passthrough: not kept up",
    ]);
    expect(within(chart).getByText(/passthrough: not kept up at 3,100 spans\/s/)).toBeTruthy();
    const table = await comparison();
    const max = metricRow(table, "max_throughput");
    expect(max.textContent).toContain("2,000 spans/s");
    expect(within(max).getByTestId("limited-by").textContent).toBe("limited by: receiver");
    const recommendation = await screen.findByTestId("pipeline-recommendation");
    expect(within(recommendation).getByText("batch-tuned")).toBeTruthy();
    expect(within(recommendation).getByText("limit_mib: 69, spike_limit_mib: 14")).toBeTruthy();
    expect(within(recommendation).getByText(/7.8 millicores at 1,000/)).toBeTruthy();
  });

  it("sizes the recommendation again for a span rate typed in", async () => {
    const user = userEvent.setup();
    const calls = finishedApi({
      [`GET /api/v1/experiments/${id}/diagnostics`]: (request: Request) => {
        const target = new URL(request.url).searchParams.get("target_spans_per_s");
        if (target === null) return json(200, pipelineDiagnostics());
        if (target === "30000")
          return json(500, { detail: "pipeline diagnostics failed: database is locked" });
        return json(
          200,
          pipelineDiagnostics({
            recommendation: pipelineRecommendation({
              target_spans_per_s: Number(target),
              sizing: [
                {
                  ...pipelineRecommendation().sizing[1],
                  cores: 0.1404,
                  keeps_up: false,
                  note: "kept up with at most 12,000 spans/s on this machine: split the load over more Collectors",
                },
              ],
            }),
          }),
        );
      },
    });
    const { queryClient } = renderAt(<ExperimentPage />, at);
    const input = await screen.findByLabelText("Size for (spans/s)");
    expect(input).toHaveProperty("value", "1000");
    const sizingCalls = () =>
      calls.filter((c) => c.url.searchParams.has("target_spans_per_s")).map((c) => c.url.search);

    // Not a rate: said beside the input, nothing asked.
    await user.clear(input);
    await user.type(input, "0");
    await user.click(screen.getByRole("button", { name: "Size" }));
    expect(screen.getByText("Enter a span rate above 0.")).toBeTruthy();
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(sizingCalls()).toEqual([]);

    await user.clear(input);
    await user.type(input, "20000");
    await user.click(screen.getByRole("button", { name: "Size" }));
    const table = await screen.findByText((_, element) =>
      Boolean(element?.tagName === "CAPTION" && element.textContent?.includes("20,000 spans/s")),
    );
    const sized = table.closest("table") as HTMLElement;
    const row = within(sized).getByRole("row", { name: /batch-default/ });
    expect(within(row).getByText("140 millicores")).toBeTruthy();
    expect(within(row).getByText("no")).toBeTruthy();
    expect(within(row).getByText(/kept up with at most 12,000 spans\/s/)).toBeTruthy();
    expect(sizingCalls()).toEqual(["?target_spans_per_s=20000"]);
    // Cached under a key with the rate.
    expect(
      queryClient.getQueryData(["experiments", "diagnostics", id, { target_spans_per_s: 20000 }]),
    ).toBeTruthy();

    // Over the API's limit: said beside the input, nothing asked.
    await user.clear(input);
    await user.type(input, "20000000");
    await user.click(screen.getByRole("button", { name: "Size" }));
    expect(screen.getByText("At most 10,000,000 spans/s.")).toBeTruthy();
    expect(sizingCalls()).toHaveLength(1);

    // The API fails: its message; the sizing shown says its own rate.
    await user.clear(input);
    await user.type(input, "30000");
    await user.click(screen.getByRole("button", { name: "Size" }));
    const failed = await screen.findByText(/Could not size for 30,000 spans\/s/);
    expect(failed.getAttribute("role")).toBe("alert");
    expect(failed.textContent).toBe(
      "Could not size for 30,000 spans/s: pipeline diagnostics failed: database is locked",
    );
    expect(screen.queryByText("At most 10,000,000 spans/s.")).toBeNull();

    // Back to the experiment's own rate: no request, the first sizing again.
    await user.click(screen.getByRole("button", { name: "Back to 1,000 spans/s" }));
    expect(
      within(screen.getByTestId("pipeline-recommendation")).getByRole("table").textContent,
    ).toContain("Sized for 1,000 spans/s");
    expect(input).toHaveProperty("value", "1000");
    expect(sizingCalls()).toHaveLength(2);
  });

  it("keeps the measured figures when the diagnostics fail, with the API's message", async () => {
    finishedApi({
      [`GET /api/v1/experiments/${id}/diagnostics`]: () =>
        json(500, { detail: "pipeline diagnostics failed: no rounds" }),
    });
    renderAt(<ExperimentPage />, at);
    const alert = await screen.findByText(/pipeline diagnostics failed: no rounds/);
    expect(alert.closest('[role="alert"]')).toBeTruthy();
    const table = await comparison();
    expect(metricRow(table, "cpu_cores").textContent).toContain("9.00 millicores");
    expect(table.textContent).not.toContain("no significant change");
    expect(screen.getAllByText(/the diagnostics could not be computed/).length).toBeGreaterThan(0);
  });

  it("shows live progress, with the drain, while the pipeline runs", async () => {
    stubApi({
      [`GET /api/v1/experiments/${id}`]: pipelineExperiment({
        status: "running",
        finished_at: null,
      }),
    });
    renderAt(<ExperimentPage />, at);
    expect(await screen.findByRole("heading", { name: "Live progress" })).toBeTruthy();
    expect(screen.getByText("Stops the Collectors and telemetrygen at once.")).toBeTruthy();
    // The rounds so far: no request columns for a pipeline.
    const rounds = document.querySelector("table.rounds") as HTMLElement;
    expect(rounds.textContent).not.toContain("Requests");
    expect(screen.queryByTestId("pipeline-results")).toBeNull();
  });
});
