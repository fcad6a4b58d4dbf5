import { act, cleanup, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { resetAuth, setToken } from "../../api/auth";
import { FakeEventSource } from "../../test/eventSource";
import { experiment } from "../../test/fixtures";
import { pipelineExperiment } from "../../test/pipelineFixtures";
import { json, renderAt, stubApi } from "../../test/render";
import { LiveRun } from "./LiveRun";

// The live view's event stream, pushed by hand (api/eventStream.ts is tested on its own).
vi.mock("../../api/eventStream", async (importOriginal) => {
  const { FakeEventSource } = await import("../../test/eventSource");
  return {
    ...(await importOriginal<typeof import("../../api/eventStream")>()),
    openEventStream: (url: string) => new FakeEventSource(url),
  };
});

beforeEach(() => {
  FakeEventSource.instances = [];
  sessionStorage.clear();
  resetAuth();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const running = experiment({ status: "running" });

describe("LiveRun", () => {
  it("follows the event stream and closes it on the finished event", async () => {
    stubApi({});
    const { queryClient } = renderAt(<LiveRun experiment={running} />);
    const invalidate = vi.spyOn(queryClient, "invalidateQueries");
    const source = FakeEventSource.latest();
    expect(source.url).toBe(`/api/v1/experiments/${running.id}/events`);
    act(() => {
      source.open();
      source.emit("progress", {
        experiment_id: running.id,
        status: "running",
        phase: "warmup",
        configuration: "batch-default",
        round: 0,
        rounds: 1,
        slot: 1,
        slots: 2,
        elapsed_s: 12,
        remaining_s: 12,
        phase_elapsed_s: 0,
        phase_duration_s: 1,
        current_rps: 99.5,
        current_p99_us: 4100,
        service_cpu_utilization: 0.12,
      });
    });
    expect(screen.getByText("Warming up")).toBeTruthy();
    expect(screen.getByText(/batch-default · round 1 of 1 · run 2 of 2/)).toBeTruthy();
    expect(screen.getByRole("progressbar", { name: "Overall" }).getAttribute("aria-valuenow")).toBe(
      "50",
    );
    expect(screen.getByText("99.5 req/s")).toBeTruthy();
    expect(screen.getByText("4.10 ms")).toBeTruthy();
    expect(screen.getByText("12.0 %")).toBeTruthy();
    expect(screen.getByText("live")).toBeTruthy();
    expect(screen.getByText("Latest reading: warming up, batch-default.")).toBeTruthy();

    // The measured phase reports no rate until it ends: the warm-up's stays, labelled.
    act(() =>
      source.emit("progress", {
        experiment_id: running.id,
        status: "running",
        phase: "measuring",
        configuration: "batch-default",
        slot: 1,
        slots: 2,
        elapsed_s: 13,
        remaining_s: 11,
      }),
    );
    expect(screen.getByText("Measuring")).toBeTruthy();
    expect(screen.getByText("99.5 req/s")).toBeTruthy();

    act(() =>
      source.emit("progress", {
        experiment_id: running.id,
        status: "completed",
        phase: "finished",
      }),
    );
    expect(source.readyState).toBe(FakeEventSource.CLOSED);
    expect(invalidate).toHaveBeenCalledWith({ queryKey: ["experiments"] });
  });

  it("shows the queue position of a queued experiment", () => {
    stubApi({});
    renderAt(<LiveRun experiment={experiment({ status: "queued", queue_position: 2 })} />);
    act(() =>
      FakeEventSource.latest().emit("progress", {
        experiment_id: "x",
        status: "queued",
        phase: "queued",
        queue_position: 2,
      }),
    );
    expect(screen.getByText(/position 2 in the queue/)).toBeTruthy();
  });

  it("opens the stream again once a token is entered", () => {
    stubApi({});
    renderAt(<LiveRun experiment={running} />);
    const refused = FakeEventSource.latest();
    act(() => refused.fail(true));
    expect(FakeEventSource.instances).toHaveLength(1);
    act(() => setToken("live-token-0123456789abcdef"));
    expect(FakeEventSource.instances).toHaveLength(2);
    expect(refused.readyState).toBe(FakeEventSource.CLOSED);
    expect(FakeEventSource.latest().url).toBe(`/api/v1/experiments/${running.id}/events`);
  });

  it("says when the connection drops", () => {
    stubApi({});
    renderAt(<LiveRun experiment={running} />);
    act(() => FakeEventSource.latest().fail(false));
    expect(screen.getByText(/reconnecting/)).toBeTruthy();
  });

  it("cancels, and shows the API's refusal", async () => {
    const user = userEvent.setup();
    const calls = stubApi({
      [`POST /api/v1/experiments/${running.id}/cancel`]: () =>
        json(409, { detail: `experiment ${running.id} is completed` }),
    });
    renderAt(<LiveRun experiment={running} />);
    await user.click(screen.getByRole("button", { name: "Cancel experiment" }));
    expect((await screen.findByRole("alert")).textContent).toContain("is completed");
    await waitFor(() => expect(calls.some((c) => c.method === "POST")).toBe(true));
  });

  it("shows a pipeline's drain, without a request rate or latency", () => {
    stubApi({});
    const pipeline = pipelineExperiment({ status: "running", finished_at: null });
    renderAt(<LiveRun experiment={pipeline} />);
    const source = FakeEventSource.latest();
    act(() => {
      source.open();
      source.emit("progress", {
        experiment_id: pipeline.id,
        status: "running",
        phase: "starting",
        configuration: "tail-sampling",
        round: 0,
        rounds: 1,
        slot: 3,
        slots: 4,
        elapsed_s: 30,
        remaining_s: 10,
      });
    });
    expect(screen.getByText("Starting the Collectors")).toBeTruthy();
    act(() =>
      source.emit("progress", {
        experiment_id: pipeline.id,
        status: "running",
        phase: "draining",
        configuration: "tail-sampling",
        round: 0,
        rounds: 1,
        slot: 3,
        slots: 4,
        elapsed_s: 36,
        remaining_s: 4,
        phase_elapsed_s: 1,
        phase_duration_s: 4,
      }),
    );
    expect(screen.getByText("Draining the pipeline")).toBeTruthy();
    expect(screen.getByText(/tail-sampling · round 1 of 1 · run 4 of 4/)).toBeTruthy();
    expect(
      screen
        .getByRole("progressbar", { name: "Draining the pipeline (this run)" })
        .getAttribute("aria-valuenow"),
    ).toBe("25");
    expect(screen.getByTestId("draining-note").textContent).toContain(
      "passes on what it still holds",
    );
    expect(screen.queryByText("Rate")).toBeNull();
    expect(screen.queryByText("p99")).toBeNull();
    expect(screen.getByText("Stops the Collectors and telemetrygen at once.")).toBeTruthy();
  });
});
