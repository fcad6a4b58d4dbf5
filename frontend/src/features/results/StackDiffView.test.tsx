import { cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { FlameDiff, FlameDiffNode } from "../../api/types";
import { diagnostics, flameGraph } from "../../test/fixtures";
import { json, renderAt, stubApi } from "../../test/render";
import { WhereExportRuns } from "./WhereExportRuns";

vi.mock("./ExportBarChart", () => import("../../test/chartStubs"));
// d3-flame-graph draws measured SVG, which jsdom does not do: the stand-in shows what the
// chart is given (its label and each frame's colour and hover text).
vi.mock("./FlameGraphChart", () => import("../../test/chartStubs"));

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const id = diagnostics().experiment_id;
const runs = diagnostics().where_export_runs;
const order = ["none", "batch-default"];

const frame = (
  name: string,
  baseline: number,
  candidate: number,
  children: FlameDiffNode[] = [],
) => ({
  name,
  value: candidate,
  baseline,
  candidate,
  delta: candidate - baseline,
  children,
});

function flameDiff(): FlameDiff {
  return {
    unit: "us_per_request",
    unit_note: "µs of CPU per request",
    baseline: {
      experiment_id: id,
      configuration: "none",
      sampler: "async-profiler",
      samples: 100,
      cpu_per_request_us: 100,
    },
    candidate: {
      experiment_id: id,
      configuration: "batch-default",
      sampler: "async-profiler",
      samples: 200,
      cpu_per_request_us: 200,
    },
    root: frame("batch-default", 100, 200, [
      frame("thread main", 100, 100, [frame("handle", 60, 70), frame("parse", 40, 30)]),
      frame("thread BatchSpanProcessor", 0, 100, [frame("export", 0, 100)]),
    ]),
    changes: [
      { name: "export", baseline: 0, candidate: 100, delta: 100 },
      { name: "parse", baseline: 40, candidate: 30, delta: -10 },
    ],
  };
}

const DIFF = `GET /api/v1/experiments/${id}/stacks/batch-default/diff`;

describe("Where the added cost went", () => {
  it("opens from the page's URL with the frames coloured by their change", async () => {
    const calls = stubApi({ [DIFF]: flameDiff() });
    renderAt(
      <WhereExportRuns experimentId={id} whereExportRuns={runs} order={order} baseline="none" />,
      { path: "/?flame=batch-default&against=none" },
    );
    const chart = await screen.findByTestId("flame-chart");
    expect(chart.textContent).toContain("Where the added cost went: batch-default against none");
    const exportFrame = within(chart).getByText(/^export ·/);
    expect(exportFrame.textContent).toBe("export · 0 µs → 100 µs per request (+100 µs)");
    expect(exportFrame.getAttribute("data-color")).toBe("#d62728");
    const parse = within(chart).getByText(/^parse ·/);
    expect(parse.getAttribute("data-color")).not.toBe("#eeeeee"); // a pale blue
    expect(
      within(chart)
        .getByText(/^thread main ·/)
        .getAttribute("data-color"),
    ).toBe("#eeeeee");
    expect(screen.getByRole("heading", { name: "Where the added cost went" })).toBeTruthy();
    expect(screen.getByText(/more CPU per request/)).toBeTruthy();
    expect(screen.getByRole("row", { name: /export/ }).textContent).toContain("+100 µs");
    const link = screen.getByRole("link", { name: "Download folded diff" });
    expect(link.getAttribute("href")).toBe(
      `/api/v1/experiments/${id}/stacks/batch-default/diff?against=none&format=folded`,
    );
    const asked = calls.find((c) => c.url.pathname.endsWith("/diff"));
    expect(asked?.url.searchParams.get("against")).toBe("none");
    // The plain flame graph is not fetched.
    expect(calls.some((c) => c.url.pathname.endsWith("/stacks/batch-default"))).toBe(false);
  });

  it("switches from the flame graph to the diff against the baseline and back", async () => {
    const user = userEvent.setup();
    stubApi({
      [`GET /api/v1/experiments/${id}/stacks/batch-default`]: flameGraph("batch-default"),
      [DIFF]: flameDiff(),
    });
    const { router } = renderAt(
      <WhereExportRuns experimentId={id} whereExportRuns={runs} order={order} baseline="none" />,
    );
    expect((await screen.findByTestId("flame-chart")).textContent).toContain(
      "Flame graph of batch-default",
    );
    await user.selectOptions(screen.getByLabelText("Show"), "diff");
    expect(await screen.findByText(/batch-default against none/)).toBeTruthy();
    expect(screen.getByLabelText<HTMLSelectElement>("Compare with").value).toBe("none");
    expect(router.state.location.search).toBe("?against=none");
    await user.selectOptions(screen.getByLabelText("Show"), "flame");
    expect(await screen.findByText(/Flame graph of batch-default/)).toBeTruthy();
    expect(router.state.location.search).toBe("");
  });

  it("compares with another experiment's configuration and says why a side is missing", async () => {
    const calls = stubApi({
      [DIFF]: () =>
        json(404, {
          detail: "experiment old has no stack samples of 'batch-default': round 0: attach refused",
        }),
    });
    renderAt(
      <WhereExportRuns experimentId={id} whereExportRuns={runs} order={order} baseline="none" />,
      { path: "/?flame=batch-default&against_experiment=old-experiment-id" },
    );
    expect((await screen.findByRole("alert")).textContent).toContain("round 0: attach refused");
    const asked = calls.find((c) => c.url.pathname.endsWith("/diff"));
    expect(asked?.url.searchParams.get("against_experiment")).toBe("old-experiment-id");
    expect(asked?.url.searchParams.get("against")).toBe("batch-default");
    expect(screen.getByLabelText<HTMLSelectElement>("Compare with").selectedOptions[0].text).toBe(
      "batch-default of experiment old-expe",
    );
  });
});
