import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { pipelineVariants } from "../../test/pipelineFixtures";
import { estimated, invalid, json, renderAt, stubApi, submitted } from "../../test/render";
import { NewPipelinePage } from "./NewPipelinePage";

/** Long enough for a form to settle and the backend stub to answer on a busy machine. */
const SETTLED = { timeout: 4000 };

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const path = "/pipelines/new";

function renderForm(
  post: (request: Request, body: unknown) => Response,
  routes: Record<string, unknown> = {},
) {
  const calls = stubApi({
    "GET /api/v1/pipelines": pipelineVariants,
    "POST /api/v1/experiments": post,
    ...routes,
  });
  return { calls, ...renderAt(<NewPipelinePage />, { path, pattern: path }) };
}

const posted = (calls: { method: string; url: URL; body: unknown }[]) =>
  calls.find(submitted)?.body as {
    configurations: Record<string, unknown>[];
    load: Record<string, unknown>;
    rounds: number;
  };

describe("NewPipelinePage", () => {
  it("offers the shipped variants, passthrough the baseline, with what each is", async () => {
    renderForm(() => json(202, {}));
    const passthrough = await screen.findByRole("listitem", { name: "Variant passthrough" });
    expect(within(passthrough).getByRole("checkbox", { name: "passthrough" })).toHaveProperty(
      "checked",
      true,
    );
    expect(
      within(passthrough).getByRole("radio", { name: "passthrough is the baseline" }),
    ).toHaveProperty("checked", true);
    expect(screen.getByRole("checkbox", { name: "batch-default" })).toHaveProperty("checked", true);
    const tail = screen.getByRole("listitem", { name: "Variant tail-sampling" });
    expect(within(tail).getByRole("checkbox")).toHaveProperty("checked", false);
    // Not chosen: it cannot be the baseline.
    expect(within(tail).getByRole("radio")).toHaveProperty("disabled", true);
    expect(within(tail).getByText("holds traces")).toBeTruthy();
    expect(within(tail).getByText("samples")).toBeTruthy();
    const lb = screen.getByRole("listitem", { name: "Variant loadbalancing" });
    expect(within(lb).getByText("2 downstream Collectors")).toBeTruthy();
    // The API's estimate of the spec (the stub's: 5 rounds × 80 s).
    expect(await screen.findByText(/about 6 min 40 s/, {}, SETTLED)).toBeTruthy();
  });

  it("queues the variants, load and rounds chosen, then opens the live run", async () => {
    const user = userEvent.setup();
    const { calls, router } = renderForm(() =>
      json(202, { id: "pipe-1", status: "queued", queue_position: 0, estimated_seconds: 30 }),
    );
    await user.click(await screen.findByRole("checkbox", { name: "batch-tuned" }));
    const tuned = screen.getByRole("listitem", { name: "Variant batch-tuned" });
    expect(within(tuned).getByText("LAB_BATCH_TIMEOUT")).toBeTruthy();
    await user.click(within(tuned).getByRole("button", { name: "Add variable" }));
    const name = within(tuned).getByLabelText("Variable 1 name");
    await user.type(name, "BATCH_TIMEOUT");
    await user.type(within(tuned).getByLabelText("Variable 1 value"), "2s");
    await user.click(within(tuned).getByRole("radio", { name: "batch-tuned is the baseline" }));
    for (const [label, value] of [
      ["Spans per second", "500"],
      ["Warm-up (s)", "1"],
      ["Measured (s)", "2"],
      ["Drain (s)", "3"],
      ["Rounds", "1"],
    ]) {
      const input = screen.getByLabelText(label);
      await user.clear(input);
      await user.type(input, value);
    }
    // The API's estimate of the spec (the stub's: 1 round × 80 s).
    expect(await screen.findByText(/about 1 min 20 s/, {}, SETTLED)).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Start pipeline experiment" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/experiments/pipe-1"));
    const body = posted(calls);
    expect(body.configurations).toEqual([
      { pipeline: "passthrough", baseline: false, settings: {} },
      { pipeline: "batch-default", baseline: false, settings: {} },
      {
        pipeline: "batch-tuned",
        baseline: true,
        settings: { LAB_BATCH_TIMEOUT: "2s" },
      },
    ]);
    expect(body.load).toEqual({
      spans_per_s: 500,
      warmup_s: 1,
      duration_s: 2,
      drain_s: 3,
      spans_per_trace: 5,
      attribute_bytes: 0,
    });
    expect(body).toMatchObject({ subject: "collector", rounds: 1, seed: 0 });
  });

  it("adds an optional ramp, its rates from the API's estimate and its 422 beside its field", async () => {
    const user = userEvent.setup();
    const tooLow = () =>
      invalid({
        type: "greater_than_equal",
        loc: ["body", "load", "ramp", "factor"],
        msg: "Input should be greater than or equal to 1.05",
      });
    type Ramped = { load: { ramp?: { factor?: number; max_spans_per_s?: number } } };
    // The API parses the estimate's body as it would the spec: a factor of 1 is its 422 too.
    // Its rates are the backend's (tests/spec/test_estimate.py); the stub answers the top's.
    const { calls } = renderForm(tooLow, {
      "POST /api/v1/experiments/estimate": async (request: Request, body: unknown) => {
        const ramp = (body as Ramped).load.ramp;
        if (ramp?.factor === 1) return tooLow();
        const answer = estimated(request, body);
        if (ramp?.max_spans_per_s !== 5000) return answer;
        const rates = [1000, 1500, 2250, 3375];
        return json(200, { ...(await answer.json()), ramp_steps: 4, ramp_rates: rates });
      },
    });
    const toggle = await screen.findByRole("checkbox", {
      name: /raise the span rate step by step/,
    });
    expect(toggle).toHaveProperty("checked", false);
    expect(screen.queryByLabelText("Factor")).toBeNull();
    await user.click(toggle);
    // The estimate of the defaults: 12 steps from 1,000 spans/s, each (3 + 1.5) s.
    const rates = await screen.findByTestId("ramp-rates", {}, SETTLED);
    expect(rates.textContent).toContain("At most 12 steps per round");
    expect(rates.textContent).toContain("1,000 → 1,500 → 2,250 → …");
    expect(rates.textContent).toContain("each sends 3 s (+1.5 s to start and settle)");
    expect(await screen.findByText(/up to 12 ramp steps included/, {}, SETTLED)).toBeTruthy();
    const top = screen.getByLabelText("Up to (spans/s)");
    await user.clear(top);
    await user.type(top, "5000");
    await waitFor(
      () =>
        expect(screen.getByTestId("ramp-rates").textContent).toContain(
          "1,000 → 1,500 → 2,250 → 3,375 spans/s",
        ),
      SETTLED,
    );
    const factor = screen.getByLabelText("Factor");
    await user.clear(factor);
    await user.type(factor, "1");
    expect(await screen.findByText(/enter the load, the ramp/, {}, SETTLED)).toBeTruthy();
    expect(screen.queryByTestId("ramp-rates")).toBeNull();
    expect(screen.getByText(/The steps show once the load and the ramp's fields/)).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Start pipeline experiment" }));
    expect((await screen.findByText("Input should be greater than or equal to 1.05")).id).toBe(
      "field-load-ramp-factor-error",
    );
    expect(posted(calls).load.ramp).toEqual({
      factor: 1,
      step_s: 3,
      max_spans_per_s: 5000,
      max_steps: 12,
    });
  });

  it("adds a variant by its config file, and shows the API's 422 beside each field", async () => {
    const user = userEvent.setup();
    const { calls } = renderForm(() =>
      invalid(
        {
          type: "greater_than",
          loc: ["body", "load", "spans_per_s"],
          msg: "Input should be greater than 0",
        },
        {
          type: "value_error",
          loc: ["body", "configurations", 2, "config_file"],
          msg: "invalid Collector pipeline config:\n  /etc/otel/mine.yaml: cannot read the config file: No such file or directory",
        },
        {
          type: "greater_than_equal",
          loc: ["body", "load", "spans_per_trace"],
          msg: "Input should be greater than or equal to 2",
        },
      ),
    );
    await user.type(
      await screen.findByLabelText("Add a variant by config file path"),
      "/etc/otel/mine.yaml",
    );
    await user.click(screen.getByRole("button", { name: "Add" }));
    const card = screen.getByRole("listitem", { name: "Config file mine" });
    expect(within(card).getByLabelText("Config file")).toHaveProperty(
      "value",
      "/etc/otel/mine.yaml",
    );
    const rate = screen.getByLabelText("Spans per second");
    await user.clear(rate);
    await user.type(rate, "0");
    await user.click(screen.getByRole("button", { name: "Start pipeline experiment" }));

    const summary = await screen.findByRole("alert");
    expect(summary.textContent).toContain("load.spans_per_s");
    expect(summary.textContent).toContain("configurations.2.config_file");
    expect(rate.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById("field-load-spans_per_s-error")?.textContent).toBe(
      "Input should be greater than 0",
    );
    expect(within(card).getByText(/cannot read the config file/)).toBeTruthy();
    expect(within(card).getByLabelText("Config file").getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById("field-load-spans_per_trace-error")?.textContent).toBe(
      "Input should be greater than or equal to 2",
    );
    expect(posted(calls).configurations[2]).toEqual({
      name: "mine",
      config_file: "/etc/otel/mine.yaml",
      baseline: false,
      settings: {},
    });
    await waitFor(() => expect(document.activeElement).toBe(summary));
    // The summary's link takes the keyboard to the field.
    await user.click(within(summary).getByRole("link", { name: "configurations.2.config_file" }));
    expect(document.activeElement).toBe(within(card).getByLabelText("Config file"));
  });

  it("shows the API's message when the variants cannot be loaded", async () => {
    stubApi({
      "GET /api/v1/pipelines": () => json(500, { detail: "collector-pipelines/lab is missing" }),
    });
    renderAt(<NewPipelinePage />, { path, pattern: path });
    expect((await screen.findByRole("alert")).textContent).toContain(
      "collector-pipelines/lab is missing",
    );
  });
});
