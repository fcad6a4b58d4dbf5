import { cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CALIBRATION_ID, calibrationStatus } from "../../test/fixtures";
import {
  invalid,
  json,
  queued,
  renderAt,
  renderFormPage,
  stubApi,
  submitted,
} from "../../test/render";
import { CalibrationPage } from "./CalibrationPage";
import { CalibrationsPage } from "./CalibrationsPage";
import { NewCalibrationPage } from "./NewCalibrationPage";

/** Long enough for a form to settle and the backend stub to answer on a busy machine. */
const SETTLED = { timeout: 4000 };

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const at = { path: `/calibrations/${CALIBRATION_ID}`, pattern: "/calibrations/:id" };
const renderNewCalibration = (post: () => Response) =>
  renderFormPage(<NewCalibrationPage />, "/calibrations/new", {
    "POST /api/v1/calibrations": post,
  });

describe("CalibrationPage", () => {
  it("shows the noise floor per metric, relative and absolute, and what it means for a check", async () => {
    stubApi({ [`GET /api/v1/calibrations/${CALIBRATION_ID}`]: calibrationStatus() });
    renderAt(<CalibrationPage />, at);
    const table = await screen.findByTestId("noise-floor-table");
    const p99 = within(table).getByRole("row", { name: /^p99 / });
    expect(within(p99).getByText("±8.7%")).toBeTruthy();
    expect(within(p99).getByText("±348 µs")).toBeTruthy();
    expect(within(p99).getByText("5")).toBeTruthy();
    const throughput = within(table).getByRole("row", { name: /^max throughput/ });
    expect(within(throughput).getByText("unknown")).toBeTruthy();
    expect(throughput.textContent).toContain("not measured in any round");
    expect(screen.getByTestId("floor-meaning").textContent).toContain(
      "A check with 5 rounds at this load can resolve changes larger than ±2.1% p50, ±8.7% p99, ±1.8% CPU per request",
    );
    expect(
      screen.getByText("200 req/s for 10 s, 16 connections, /work?iters=1000&spans=5"),
    ).toBeTruthy();
    expect(screen.getByRole("link", { name: "7e57ab1e" }).getAttribute("href")).toBe(
      "/experiments/7e57ab1e-0000-1111-2222-333344445555",
    );
  });

  it("waits for a running calibration, and shows a failed one's error", async () => {
    stubApi({
      [`GET /api/v1/calibrations/${CALIBRATION_ID}`]: calibrationStatus({
        status: "running",
        noise_floor: null,
      }),
    });
    renderAt(<CalibrationPage />, at);
    expect(await screen.findByText(/the noise floor comes when it finishes/)).toBeTruthy();
    cleanup();
    stubApi({
      [`GET /api/v1/calibrations/${CALIBRATION_ID}`]: calibrationStatus({
        status: "failed",
        noise_floor: null,
        error: "the calibration's experiment is failed: no round completed",
      }),
    });
    renderAt(<CalibrationPage />, at);
    expect(await screen.findByText(/no round completed/)).toBeTruthy();
  });

  it("shows the API's 404 detail", async () => {
    stubApi({
      [`GET /api/v1/calibrations/${CALIBRATION_ID}`]: () =>
        json(404, { detail: `no calibration ${CALIBRATION_ID}` }),
    });
    renderAt(<CalibrationPage />, at);
    expect((await screen.findByRole("alert")).textContent).toContain(
      `no calibration ${CALIBRATION_ID}`,
    );
  });
});

describe("CalibrationsPage", () => {
  it("lists calibrations with their status and p99 floor", async () => {
    stubApi({
      "GET /api/v1/calibrations": [
        calibrationStatus(),
        calibrationStatus({ id: "queued-1-aaaa", status: "queued", noise_floor: null }),
      ],
    });
    renderAt(<CalibrationsPage />);
    const link = await screen.findByRole("link", { name: `go ${CALIBRATION_ID.slice(0, 8)}` });
    expect(link.getAttribute("href")).toBe(`/calibrations/${CALIBRATION_ID}`);
    const row = link.closest("tr") as HTMLElement;
    expect(within(row).getByText("completed")).toBeTruthy();
    expect(within(row).getByText("±8.7% (±348 µs) at 5 paired rounds")).toBeTruthy();
    const queued = screen.getByRole("link", { name: "go queued-1" }).closest("tr") as HTMLElement;
    expect(within(queued).getByText("queued")).toBeTruthy();
  });

  it("has an empty state", async () => {
    stubApi({ "GET /api/v1/calibrations": [] });
    renderAt(<CalibrationsPage />);
    expect(await screen.findByText(/No calibrations yet/)).toBeTruthy();
  });
});

describe("NewCalibrationPage", () => {
  it("queues an A/A calibration and opens its page", async () => {
    const user = userEvent.setup();
    const { calls, router } = renderNewCalibration(() => queued("new-calibration", 200));
    await user.click(await screen.findByRole("radio", { name: /java/ }));
    await user.selectOptions(screen.getByLabelText("Configuration"), "batch-default");
    await user.clear(screen.getByLabelText("Rounds"));
    await user.type(screen.getByLabelText("Rounds"), "8");
    // The API's estimate of the request (the stub's: 8 rounds × 80 s).
    expect(await screen.findByText("about 10 min 40 s", {}, SETTLED)).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Calibrate" }));
    await vi.waitFor(() =>
      expect(router.state.location.pathname).toBe("/calibrations/new-calibration"),
    );
    expect(calls.find(submitted)?.body).toEqual({
      service: { kind: "demo", language: "java" },
      configuration: { preset: "batch-default" },
      load: { rate: 200, duration_s: 10, max_throughput_s: 0, query: { iters: 1000, spans: 5 } },
      rounds: 8,
    });
  });

  it("shows the API's 422 beside the field", async () => {
    const user = userEvent.setup();
    renderNewCalibration(() =>
      invalid({
        loc: ["body", "rounds"],
        msg: "Input should be greater than or equal to 2",
        type: "greater_than_equal",
      }),
    );
    const rounds = await screen.findByLabelText("Rounds");
    await user.clear(rounds);
    await user.type(rounds, "1");
    await user.click(screen.getByRole("button", { name: "Calibrate" }));
    expect((await screen.findByText("Input should be greater than or equal to 2")).id).toBe(
      "field-rounds-error",
    );
    expect(screen.getByRole("heading", { name: "The calibration was not queued" })).toBeTruthy();
  });
});
