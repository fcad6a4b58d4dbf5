import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ExperimentSummary } from "../../api/types";
import { experiment, services } from "../../test/fixtures";
import { json, renderAt, stubApi } from "../../test/render";
import { ExperimentsPage } from "./ExperimentsPage";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const { spec: _spec, environment: _environment, rounds: _rounds, ...summary } = experiment();
const goRun: ExperimentSummary = summary;
const pipelineRun: ExperimentSummary = {
  ...summary,
  id: "f0f49932-7b1c-4a71-9c8c-df9e4af4d6fc",
  name: "lab smoke",
  subject: "collector",
  service: "collector",
  configurations: ["passthrough", "batch-default"],
  baseline: "passthrough",
};
const javaRun: ExperimentSummary = {
  ...summary,
  id: "java-1",
  name: null,
  service: "java",
  status: "failed",
};

describe("ExperimentsPage", () => {
  it("lists experiments with status, service, configurations, verdict slot and date", async () => {
    stubApi({ "GET /api/v1/experiments": [goRun, javaRun], "GET /api/v1/services": services });
    renderAt(<ExperimentsPage />);
    const link = await screen.findByRole("link", { name: "go processors" });
    expect(link.getAttribute("href")).toBe(`/experiments/${goRun.id}`);
    const row = link.closest("tr") as HTMLElement;
    expect(within(row).getByText("completed")).toBeTruthy();
    expect(within(row).getByText("(baseline)", { exact: false })).toBeTruthy();
    expect(within(row).getByText("—")).toBeTruthy();
    expect(row.querySelector("time")?.getAttribute("dateTime")).toBe(goRun.created_at);
    expect(screen.getByRole("link", { name: "Experiment java-1" })).toBeTruthy();
  });

  it("filters by service through the URL and the API", async () => {
    const user = userEvent.setup();
    const calls = stubApi({
      "GET /api/v1/experiments": (request: Request) =>
        json(
          200,
          new URL(request.url).searchParams.get("service") === "java"
            ? [javaRun]
            : [goRun, javaRun],
        ),
      "GET /api/v1/services": services,
    });
    const { router } = renderAt(<ExperimentsPage />);
    await screen.findByRole("link", { name: "go processors" });
    await user.selectOptions(await screen.findByLabelText("Service"), "java");
    await waitFor(() => expect(screen.queryByRole("link", { name: "go processors" })).toBeNull());
    expect(router.state.location.search).toBe("?service=java");
    expect(calls.some((c) => c.url.searchParams.get("service") === "java")).toBe(true);
  });

  it("has an empty state and an error state", async () => {
    stubApi({ "GET /api/v1/experiments": [], "GET /api/v1/services": services });
    renderAt(<ExperimentsPage />, { path: "/?service=node" });
    expect(await screen.findByText(/No experiments on/)).toBeTruthy();
    cleanup();
    stubApi({
      "GET /api/v1/experiments": () => json(500, { detail: "database is locked" }),
      "GET /api/v1/services": services,
    });
    renderAt(<ExperimentsPage />);
    expect((await screen.findByRole("alert")).textContent).toContain("database is locked");
  });

  it("shows a pipeline experiment as one, and filters the pipelines", async () => {
    const user = userEvent.setup();
    const calls = stubApi({
      "GET /api/v1/experiments": (request: Request) =>
        json(
          200,
          new URL(request.url).searchParams.get("service") === "collector"
            ? [pipelineRun]
            : [goRun, pipelineRun],
        ),
      "GET /api/v1/services": services,
    });
    const { router } = renderAt(<ExperimentsPage />);
    const link = await screen.findByRole("link", { name: "lab smoke" });
    const row = link.closest("tr") as HTMLElement;
    // The summary's subject says what was measured.
    expect(within(row).getByText("Collector pipeline")).toBeTruthy();
    const goRow = screen.getByRole("link", { name: "go processors" }).closest("tr") as HTMLElement;
    expect(within(goRow).queryByText("Collector pipeline")).toBeNull();
    expect(within(goRow).getByText("go")).toBeTruthy();
    expect(within(row).getByText("batch-default")).toBeTruthy();
    expect(within(row).getByText("(baseline)", { exact: false })).toBeTruthy();
    expect(screen.getByRole("link", { name: "New pipeline experiment" }).getAttribute("href")).toBe(
      "/pipelines/new",
    );
    await user.selectOptions(screen.getByLabelText("Service"), "Collector pipelines");
    await waitFor(() => expect(screen.queryByRole("link", { name: "go processors" })).toBeNull());
    expect(router.state.location.search).toBe("?service=collector");
    expect(calls.some((c) => c.url.searchParams.get("service") === "collector")).toBe(true);
  });
});
