import { cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  batchCost,
  COST_DEFAULTS,
  costReport,
  experiment,
  figure,
  noneCost,
} from "../../test/fixtures";
import { PIPELINE_EXPERIMENT_ID, pipelineExperiment } from "../../test/pipelineFixtures";
import { invalid, json, renderAt, stubApi } from "../../test/render";
import { CostPanel } from "./CostPanel";

// ECharts draws measured SVG, which jsdom does not do; the chart's data is tested on its own.
vi.mock("./CostChart", () => import("../../test/chartStubs"));

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const id = experiment().id;
const COST = `GET /api/v1/experiments/${id}/cost`;
const PIPELINES = "GET /api/v1/experiments";

function renderPanel(search = "") {
  return renderAt(<CostPanel experimentId={id} order={["none", "batch-default"]} />, {
    path: `/experiments/${id}${search}`,
    pattern: "/experiments/:id",
  });
}

/** The cell of a configuration in a table row (`data-row`), by column. */
function cell(row: string, configuration: "none" | "batch-default"): HTMLElement {
  const tr = document.querySelector(`tr[data-row="${row}"]`) as HTMLElement;
  return tr.querySelectorAll("td")[configuration === "none" ? 0 : 1] as HTMLElement;
}

/** The cost for the query string's request rate, as the API would size it. */
function costAtRate(request: Request) {
  const rate = Number(new URL(request.url).searchParams.get("requests_per_s") ?? 100);
  const report = costReport({ inputs: { ...COST_DEFAULTS, requests_per_s: rate } });
  if (report.recommended) {
    report.recommended.summary = `batch-default costs $${(2.6957 * rate).toFixed(2)} a month at ${rate.toLocaleString("en-US")} req/s`;
  }
  return json(200, report);
}

describe("CostPanel", () => {
  it("shows every figure with its 95% interval, the recommended cost and the Collector's source", async () => {
    const note =
      "2 of 10 rounds have no telemetry volume yet: collect the ledger (POST /api/v1/experiments/{id}/ledger) to read it";
    const calls = stubApi({ [COST]: costReport({ note }), [PIPELINES]: [] });
    renderPanel();

    expect((await screen.findByTestId("cost-recommended")).textContent).toBe(
      costReport().recommended?.summary,
    );
    const collector = screen.getByTestId("cost-collector");
    expect(within(collector).getByText("documented")).toBeTruthy();
    expect(collector.textContent).toContain("0.0802 cores per 10k spans/s");
    expect(collector.textContent).toContain("make bench-collector");
    expect(screen.getByTestId("cost-note").textContent).toBe(note);
    expect((await screen.findByTestId("cost-chart")).getAttribute("data-bars")).toBe("2");

    // $/month with its interval; the difference from the baseline, signed.
    expect(cell("usd_per_month", "batch-default").textContent).toBe(
      "$269.5795% interval $262.10 to $277.04",
    );
    expect(cell("usd_per_month_vs_baseline", "batch-default").textContent).toContain("+$269.57");
    expect(cell("usd_per_month_vs_baseline", "none").textContent).toBe("baseline");
    expect(cell("collector_cores_usd", "batch-default").textContent).toContain(
      "95% interval $0.088 to $0.089",
    );
    // Cores (the service's beyond the baseline, signed) and GB/day per signal.
    expect(cell("service_cores", "batch-default").textContent).toBe(
      "+4.50 millicores95% interval +3.80 to +5.20 millicores",
    );
    expect(cell("collector_cores", "batch-default").textContent).toBe(
      "2.41 millicores95% interval 2.39 to 2.42 millicores",
    );
    expect(cell("traces_gb_per_day", "batch-default").textContent).toBe(
      "12.5 GB/day95% interval 12.2 to 12.9 GB/day",
    );
    expect(cell("logs_store_gb_per_day", "batch-default").textContent).toContain("2.40 GB/day");
    // Bytes per request and per item, sent and stored; none sent nothing to divide by.
    expect(cell("traces_bytes_per_request", "batch-default").textContent).toContain("1.42 KiB");
    expect(cell("traces_store_bytes_per_item", "batch-default").textContent).toBe(
      "612 B95% interval 598 to 626 B",
    );
    expect(cell("traces_store_bytes_per_item", "none").textContent).toContain("unknown");
    expect(cell("usd_per_month", "none").textContent).toContain("$0.00");

    // The inputs show the values the API used, each default's source as its tooltip.
    expect(screen.getByLabelText("Request rate (req/s)")).toHaveProperty("value", "100");
    const vcpu = screen.getByLabelText("vCPU ($ per vCPU-hour)");
    expect(vcpu).toHaveProperty("value", "0.0504");
    expect(vcpu.getAttribute("title")).toContain("AWS EC2 on-demand m7i.large");
    expect(screen.getByLabelText("Retention (days)")).toHaveProperty("value", "30");
    expect(screen.getByText("Where the defaults come from")).toBeTruthy();
    expect(
      (screen.getByRole("button", { name: "Reset to defaults" }) as HTMLButtonElement).disabled,
    ).toBe(true);
    // Nothing edited: the API's defaults, no parameter sent.
    const costCalls = calls.filter((c) => c.url.pathname.endsWith("/cost"));
    expect(costCalls).toHaveLength(1);
    expect(costCalls[0].url.search).toBe("");
  });

  it('says "unknown" where a figure has no estimate, never 0', async () => {
    const batch = batchCost();
    const unknown = figure(null, null, null, { note: "no round measured it" });
    batch.signals[1] = { ...batch.signals[1], gb_per_day: unknown, store_gb_per_day: unknown };
    batch.components[4] = { ...batch.components[4], quantity: unknown, usd_per_month: unknown };
    batch.usd_per_month = figure(null, null, null, { note: "unknown in 5 of 5 rounds" });
    batch.usd_per_month_vs_baseline = figure(null, null, null, {
      note: "unknown in 5 of 5 rounds",
    });
    stubApi({
      [COST]: costReport({ configurations: [noneCost(), batch], recommended: null }),
      [PIPELINES]: [],
    });
    renderPanel();

    await screen.findByTestId("cost-chart");
    for (const row of ["logs_gb_per_day", "logs_store_gb_per_day", "logs_store_usd"]) {
      const td = cell(row, "batch-default");
      expect(td.textContent).toBe("unknownno round measured it");
      expect(td.getAttribute("data-unknown")).toBe("true");
    }
    expect(cell("usd_per_month", "batch-default").textContent).toBe(
      "unknownunknown in 5 of 5 rounds",
    );
    expect(cell("usd_per_month_vs_baseline", "batch-default").textContent).toContain("unknown");
    // The chart leaves the unknown component out of the bar (null), not 0.
    const usd = JSON.parse(screen.getByTestId("cost-chart").getAttribute("data-usd") ?? "");
    expect(usd[1][4]).toBeNull();
    expect(usd[1][3]).toBe(189.19);
    expect(screen.getByTestId("cost-recommended").textContent).toContain(
      "recommend no configuration",
    );
  });

  it("keeps an edited input in the URL, fetches the cost for it, and resets to the defaults", async () => {
    const user = userEvent.setup();
    const calls = stubApi({ [COST]: costAtRate, [PIPELINES]: [] });
    // A shared link: its inputs are the ones sent.
    const { router } = renderPanel("?retention_days=7");
    await screen.findByTestId("cost-recommended");
    expect(calls.find((c) => c.url.pathname.endsWith("/cost"))?.url.search).toBe(
      "?retention_days=7",
    );
    expect(screen.getByLabelText("Retention (days)")).toHaveProperty("value", "7");

    const rate = screen.getByLabelText("Request rate (req/s)");
    // The API's default fills the field a render after the first figures show: cleared before
    // that, the field was empty (no change to clear) and then read "100" + "2500".
    await vi.waitFor(() => expect(rate).toHaveProperty("value", "100"));
    await user.clear(rate);
    await user.type(rate, "2500{Enter}");
    await vi.waitFor(() =>
      expect(router.state.location.search).toBe("?retention_days=7&requests_per_s=2500"),
    );
    expect((await screen.findByTestId("cost-recommended")).textContent).toBe(
      "batch-default costs $6739.25 a month at 2,500 req/s",
    );
    const last = calls.filter((c) => c.url.pathname.endsWith("/cost")).at(-1);
    expect(last?.url.searchParams.get("requests_per_s")).toBe("2500");
    expect(last?.url.searchParams.get("retention_days")).toBe("7");
    expect(screen.getByText("edited; default 100")).toBeTruthy();

    // Leaving a field sends it too.
    const egress = screen.getByLabelText("Network egress ($ per GB)");
    await user.clear(egress);
    await user.type(egress, "0.05");
    await user.tab();
    await vi.waitFor(() =>
      expect(new URLSearchParams(router.state.location.search).get("egress_gb_usd")).toBe("0.05"),
    );

    await user.click(screen.getByRole("button", { name: "Reset to defaults" }));
    await vi.waitFor(() => expect(router.state.location.search).toBe(""));
    await vi.waitFor(() =>
      expect(screen.getByTestId("cost-recommended").textContent).toContain("at 100 req/s"),
    );
    expect(calls.filter((c) => c.url.pathname.endsWith("/cost")).at(-1)?.url.search).toBe("");
    expect(screen.getByLabelText("Request rate (req/s)")).toHaveProperty("value", "100");
    // Retention was never left to the API before: its default shows once the API answers.
    await vi.waitFor(() =>
      expect(screen.getByLabelText("Retention (days)")).toHaveProperty("value", "30"),
    );
  });

  it("shows the API's 422 beside the input and in the panel", async () => {
    const user = userEvent.setup();
    stubApi({
      [COST]: (request: Request) =>
        Number(new URL(request.url).searchParams.get("retention_days") ?? 30) < 0
          ? invalid({
              loc: ["query", "retention_days"],
              msg: "Input should be greater than or equal to 0",
              type: "greater_than_equal",
            })
          : json(200, costReport()),
      [PIPELINES]: [],
    });
    renderPanel();
    await screen.findByTestId("cost-recommended");

    const retention = screen.getByLabelText("Retention (days)");
    await user.clear(retention);
    await user.type(retention, "-1");
    await user.tab();
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain(
      "Could not compute the cost: retention_days: Input should be greater than or equal to 0",
    );
    expect(retention.getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByText("Input should be greater than or equal to 0")).toBeTruthy();
    expect(screen.queryByTestId("cost-recommended")).toBeNull();
    // The other inputs keep the defaults the API used before.
    expect(screen.getByLabelText("Request rate (req/s)")).toHaveProperty("value", "100");

    await user.clear(retention);
    await user.type(retention, "7{Enter}");
    expect(await screen.findByTestId("cost-recommended")).toBeTruthy();
    expect(screen.queryByRole("alert")).toBeNull();
    expect(retention.getAttribute("aria-invalid")).toBeNull();
  });

  it("sizes the Collector from a completed pipeline experiment's variant", async () => {
    const user = userEvent.setup();
    const calls = stubApi({
      [COST]: (request: Request) => {
        const query = new URL(request.url).searchParams;
        const pipeline = query.get("pipeline_experiment");
        if (!pipeline) return json(200, costReport());
        const variant = query.get("pipeline_variant") ?? "passthrough";
        return json(
          200,
          costReport({
            collector: {
              cores_per_10k_spans_s: 0.0912,
              source: `measured: variant ${variant} of pipeline experiment ${pipeline} (median of its rounds)`,
              measured: true,
            },
          }),
        );
      },
      [PIPELINES]: [pipelineExperiment()],
    });
    const { router } = renderPanel();
    await screen.findByTestId("cost-recommended");

    const from = screen.getByLabelText("Cores per span from");
    await screen.findByRole("option", {
      name: `lab smoke (${PIPELINE_EXPERIMENT_ID.slice(0, 8)})`,
    });
    await user.selectOptions(from, PIPELINE_EXPERIMENT_ID);
    await vi.waitFor(() =>
      expect(router.state.location.search).toBe(`?pipeline_experiment=${PIPELINE_EXPERIMENT_ID}`),
    );
    await user.selectOptions(screen.getByLabelText("Variant"), "batch-default");
    const collector = screen.getByTestId("cost-collector");
    await vi.waitFor(() =>
      expect(collector.textContent).toContain("variant batch-default of pipeline experiment"),
    );
    expect(within(collector).getByText("measured")).toBeTruthy();
    const last = calls.filter((c) => c.url.pathname.endsWith("/cost")).at(-1);
    expect(last?.url.searchParams.get("pipeline_experiment")).toBe(PIPELINE_EXPERIMENT_ID);
    expect(last?.url.searchParams.get("pipeline_variant")).toBe("batch-default");
    // Back to the documented figure: the variant goes with the experiment.
    await user.selectOptions(screen.getByLabelText("Cores per span from"), "");
    await vi.waitFor(() => expect(router.state.location.search).toBe(""));
  });
});
