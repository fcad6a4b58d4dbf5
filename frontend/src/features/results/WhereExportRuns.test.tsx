import { cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { diagnostics, flameGraph, stackSummary } from "../../test/fixtures";
import { json, renderAt, stubApi } from "../../test/render";
import { WhereExportRuns } from "./WhereExportRuns";

vi.mock("./ExportBarChart", () => import("../../test/chartStubs"));
vi.mock("./FlameGraphChart", () => import("../../test/chartStubs"));

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const id = diagnostics().experiment_id;

describe("WhereExportRuns", () => {
  it("shows the shares, the samplers' notes, and the flame graph of the configuration chosen", async () => {
    const user = userEvent.setup();
    const runs = {
      ...diagnostics().where_export_runs,
      simple: stackSummary("simple", { export_request_path: 0.6, application: 0.4 }),
    };
    const simple = runs.simple.location;
    if (simple) simple.distinguishable = false;
    const calls = stubApi({
      [`GET /api/v1/experiments/${id}/stacks/simple`]: flameGraph("simple"),
      [`GET /api/v1/experiments/${id}/stacks/batch-default`]: flameGraph("batch-default"),
    });
    renderAt(
      <WhereExportRuns
        experimentId={id}
        whereExportRuns={runs}
        order={["none", "simple", "batch-default"]}
      />,
    );
    expect((await screen.findByTestId("export-bars")).textContent).toBe(
      "none,simple,batch-default",
    );
    const row = screen.getByRole("row", { name: /^simple/ });
    expect(within(row).getByText("cannot tell apart request path and background")).toBeTruthy();
    expect(within(row).getByText("60.0 %")).toBeTruthy();
    expect(screen.getByText(/goroutine labels tell request goroutines/)).toBeTruthy();
    // The first configuration that exports is shown first.
    expect((await screen.findByTestId("flame-chart")).textContent).toContain("simple");
    await user.selectOptions(screen.getByLabelText("Configuration"), "batch-default");
    expect(await screen.findByText(/Flame graph of batch-default/)).toBeTruthy();
    expect(calls.map((c) => c.url.pathname)).toContain(
      `/api/v1/experiments/${id}/stacks/batch-default`,
    );
    expect(
      screen.getByRole("link", { name: "Download folded stacks" }).getAttribute("download"),
    ).toBe(`tracetax-${id.slice(0, 8)}-batch-default.folded`);
  });

  it("lists configurations without samples with the reason", async () => {
    stubApi({
      [`GET /api/v1/experiments/${id}/stacks/none`]: () =>
        json(404, { detail: "experiment has no configuration 'none'" }),
    });
    renderAt(
      <WhereExportRuns
        experimentId={id}
        whereExportRuns={{
          none: stackSummary("none", { application: 1 }),
          candidate: stackSummary("candidate", null),
        }}
        order={["none", "candidate"]}
      />,
    );
    expect(
      screen.getByText(/stack sampling was off for this experiment/).closest("li")?.textContent,
    ).toContain("candidate: no stack samples");
    expect((await screen.findByRole("alert")).textContent).toContain(
      "experiment has no configuration 'none'",
    );
  });

  it("has an empty state", () => {
    stubApi({});
    renderAt(
      <WhereExportRuns
        experimentId={id}
        whereExportRuns={{ a: stackSummary("a", null) }}
        order={["a"]}
      />,
    );
    expect(screen.getByText(/No configuration has stack samples/)).toBeTruthy();
    expect(screen.queryByRole("heading", { name: "Flame graph" })).toBeNull();
  });
});
