import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ExperimentSummary } from "../../api/types";
import { experiment, services } from "../../test/fixtures";
import { json, renderAt, stubApi } from "../../test/render";
import { DeleteExperimentButton } from "./DeleteExperimentButton";
import { ExperimentsPage } from "./ExperimentsPage";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const { spec: _spec, environment: _environment, rounds: _rounds, ...summary } = experiment();
const finished: ExperimentSummary = summary;
const queued: ExperimentSummary = { ...summary, id: "queued-1", name: "waiting", status: "queued" };

/** The list as the backend answers it: without an experiment once it has been deleted. */
function listApi(onDelete: () => Response = () => new Response(null, { status: 204 })) {
  let deleted = false;
  const calls = stubApi({
    "GET /api/v1/experiments": () => json(200, deleted ? [queued] : [finished, queued]),
    "GET /api/v1/services": services,
    [`DELETE /api/v1/experiments/${finished.id}`]: () => {
      const response = onDelete();
      deleted = response.status === 204;
      return response;
    },
  });
  return calls;
}

describe("DeleteExperimentButton", () => {
  it("deletes a finished experiment from the list once confirmed, and refreshes the list", async () => {
    const user = userEvent.setup();
    const confirm = vi.spyOn(window, "confirm").mockReturnValue(true);
    const calls = listApi();
    renderAt(<ExperimentsPage />);
    const row = (await screen.findByRole("link", { name: "go processors" })).closest("tr");
    // A queued experiment offers no Delete: the backend would refuse it (409).
    const waiting = screen.getByRole("link", { name: "waiting" }).closest("tr") as HTMLElement;
    expect(within(waiting).queryByRole("button", { name: /Delete/ })).toBeNull();

    await user.click(
      within(row as HTMLElement).getByRole("button", { name: "Delete go processors" }),
    );

    expect(confirm).toHaveBeenCalledWith(expect.stringContaining("Delete go processors?"));
    await waitFor(() => expect(screen.queryByRole("link", { name: "go processors" })).toBeNull());
    expect(calls.filter((c) => c.method === "DELETE").map((c) => c.url.pathname)).toEqual([
      `/api/v1/experiments/${finished.id}`,
    ]);
    expect(screen.getByRole("link", { name: "waiting" })).toBeTruthy();
  });

  it("does nothing when the confirmation is declined", async () => {
    const user = userEvent.setup();
    vi.spyOn(window, "confirm").mockReturnValue(false);
    const calls = listApi();
    renderAt(<ExperimentsPage />);
    await user.click(await screen.findByRole("button", { name: "Delete go processors" }));
    expect(calls.some((c) => c.method === "DELETE")).toBe(false);
    expect(screen.getByRole("link", { name: "go processors" })).toBeTruthy();
  });

  it("shows the API's refusal", async () => {
    const user = userEvent.setup();
    vi.spyOn(window, "confirm").mockReturnValue(true);
    listApi(() => json(409, { detail: "experiment x is running: cancel it first" }));
    renderAt(<ExperimentsPage />);
    await user.click(await screen.findByRole("button", { name: "Delete go processors" }));
    expect((await screen.findByRole("alert")).textContent).toContain(
      "Could not delete: experiment x is running: cancel it first",
    );
  });

  it("calls onDeleted after the experiment's page deleted it", async () => {
    const user = userEvent.setup();
    vi.spyOn(window, "confirm").mockReturnValue(true);
    listApi();
    const onDeleted = vi.fn();
    renderAt(<DeleteExperimentButton experiment={finished} onDeleted={onDeleted} />);
    await user.click(screen.getByRole("button", { name: "Delete" }));
    await waitFor(() => expect(onDeleted).toHaveBeenCalledOnce());
  });
});
