import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { queryKeys } from "../../api/queries";
import { diagnostics, roundLedger, signal, spansLedger } from "../../test/fixtures";
import { json, renderAt, stubApi, testQueryClient } from "../../test/render";
import { SpanLedger } from "./SpanLedger";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const id = diagnostics().experiment_id;
const order = ["none", "batch-default"];

describe("SpanLedger", () => {
  it("shows each configuration's flow, an unknown stage as unknown with its reason", () => {
    stubApi({});
    renderAt(<SpanLedger experimentId={id} ledger={diagnostics().ledger} order={order} />);
    const batch = screen.getByRole("region", { name: "batch-default: Spans" });
    const flow = within(batch).getByRole("list", { name: "Spans, from expected to stored" });
    const expected = flow.querySelector('[data-stage="expected"]') as HTMLElement;
    expect(expected.textContent).toBe("Expected1,500");
    const stored = flow.querySelector('[data-stage="stored"]') as HTMLElement;
    expect(within(stored).getByText("unknown")).toBeTruthy();
    expect(within(stored).getByText("Tempo: HTTP 503")).toBeTruthy();
    expect(within(batch).getByText("1 unknown")).toBeTruthy();
    expect(screen.getByText(/Some stages are/).textContent).toContain("collect the ledger again");
    expect(
      within(screen.getByRole("region", { name: "none: Spans" })).getByText("balanced"),
    ).toBeTruthy();
  });

  it("marks a loss where it happened", () => {
    stubApi({});
    const ledger = [
      roundLedger("tiny-queue", 0, [
        signal(
          "spans",
          [
            ["expected", 5000],
            ["sdk_dropped", 4004],
            ["collector_accepted", 996],
            ["collector_refused", 0],
            ["exporter_sent", 996],
            ["exporter_failed", 0],
            ["stored", 996],
          ],
          true,
        ),
      ]),
    ];
    renderAt(<SpanLedger experimentId={id} ledger={ledger} order={["tiny-queue"]} />);
    const dropped = document.querySelector('[data-stage="sdk_dropped"]') as HTMLElement;
    expect(dropped.textContent).toBe("−4,004 dropped in the SDK");
    expect(dropped.className).toContain("is-lost");
  });

  it("switches signals, and says when a configuration sends none", async () => {
    const user = userEvent.setup();
    stubApi({});
    renderAt(<SpanLedger experimentId={id} ledger={diagnostics().ledger} order={order} />);
    await user.click(screen.getByRole("radio", { name: "Log records" }));
    expect(screen.getByRole("region", { name: "none: Log records" }).textContent).toContain(
      "This configuration sends no log records.",
    );
    const logs = screen.getByRole("region", { name: "batch-default: Log records" });
    expect(within(logs).getByText("balanced")).toBeTruthy();
  });

  it("collects the ledger again and shows the new one", async () => {
    const user = userEvent.setup();
    const fresh = [
      roundLedger("none", 0, [spansLedger(0, 0, 0, 0)]),
      roundLedger("batch-default", 0, [spansLedger(1500, 0, 1500, 1500)]),
    ];
    const calls = stubApi({
      [`POST /api/v1/experiments/${id}/ledger`]: fresh,
      [`GET /api/v1/experiments/${id}/diagnostics`]: diagnostics({ ledger: fresh }),
    });
    const queryClient = testQueryClient();
    queryClient.setQueryData(queryKeys.diagnostics(id), diagnostics());
    renderAt(<SpanLedger experimentId={id} ledger={diagnostics().ledger} order={order} />, {
      queryClient,
    });
    await user.click(screen.getByRole("button", { name: "Collect the ledger again" }));
    expect(await screen.findByText("Collected again.")).toBeTruthy();
    expect(calls.some((c) => c.method === "POST" && c.url.pathname.endsWith("/ledger"))).toBe(true);
    await waitFor(() =>
      expect(
        queryClient.getQueryData<ReturnType<typeof diagnostics>>(queryKeys.diagnostics(id))?.ledger,
      ).toEqual(fresh),
    );
  });

  it("shows the API's message when collecting fails", async () => {
    const user = userEvent.setup();
    stubApi({
      [`POST /api/v1/experiments/${id}/ledger`]: () =>
        json(409, { detail: `experiment ${id} is running` }),
    });
    renderAt(<SpanLedger experimentId={id} ledger={diagnostics().ledger} order={order} />);
    await user.click(screen.getByRole("button", { name: "Collect the ledger again" }));
    expect((await screen.findByRole("alert")).textContent).toContain(`experiment ${id} is running`);
  });
});
