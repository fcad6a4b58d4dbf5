import { cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  diagnostics,
  experimentLogs,
  metaWithoutGrafana,
  otlpTrace,
  TRACE_ID,
} from "../../test/fixtures";
import { json, renderAt, stubApi } from "../../test/render";
import { Telemetry } from "./Telemetry";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const id = diagnostics().experiment_id;
const range = { from: 0, to: 1 };
const OTHER = "8927964781792c2bf3c79f86c3321a94";

describe("Telemetry", () => {
  it("shows a trace of a log record, and Loki's error with its message", async () => {
    const user = userEvent.setup();
    window.HTMLElement.prototype.scrollIntoView = () => {};
    const logs = experimentLogs();
    logs.records[0].metadata.trace_id = OTHER;
    stubApi({
      "GET /api/v1/meta": metaWithoutGrafana,
      [`GET /api/v1/traces/${TRACE_ID}`]: otlpTrace(),
      [`GET /api/v1/traces/${OTHER}`]: () =>
        json(404, { detail: `Tempo: trace ${OTHER} not found` }),
      [`GET /api/v1/experiments/${id}/logs`]: (request: Request) =>
        new URL(request.url).searchParams.get("configuration") === "none"
          ? json(502, { detail: "Loki: connection refused" })
          : json(200, logs),
    });
    renderAt(
      <Telemetry
        experimentId={id}
        sampleTraces={diagnostics().sample_traces}
        tracesPending={false}
        order={["none", "batch-default"]}
        range={range}
      />,
    );
    expect((await screen.findByTestId("waterfall")).getAttribute("data-spans")).toBe("3");
    await user.click(await screen.findByRole("button", { name: `Show trace ${OTHER}` }));
    expect((await screen.findByRole("alert")).textContent).toContain(
      `Tempo: trace ${OTHER} not found`,
    );
    expect(screen.getByLabelText("Trace")).toHaveProperty("value", OTHER);

    const logsPanel = screen.getByRole("region", { name: "Recent logs" });
    await user.selectOptions(within(logsPanel).getByLabelText("Configuration"), "none");
    expect((await within(logsPanel).findByRole("alert")).textContent).toContain(
      "Loki: connection refused",
    );
  });

  it("says when there are no sample traces and no logs", async () => {
    stubApi({
      "GET /api/v1/meta": metaWithoutGrafana,
      [`GET /api/v1/experiments/${id}/logs`]: experimentLogs({ queries: [], records: [] }),
    });
    renderAt(
      <Telemetry
        experimentId={id}
        sampleTraces={{ none: [] }}
        tracesPending={false}
        order={["none"]}
        range={range}
      />,
    );
    expect(screen.getByText(/No sample traces/)).toBeTruthy();
    expect(await screen.findByText(/Loki has no log records of this run/)).toBeTruthy();
  });
});
