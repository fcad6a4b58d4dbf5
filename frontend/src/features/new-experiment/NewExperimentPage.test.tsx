import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { presets } from "../../test/fixtures";
import { invalid, json, renderAt, renderFormPage, stubApi, submitted } from "../../test/render";
import { NewExperimentPage } from "./NewExperimentPage";

/** Long enough for a form to settle and the backend stub to answer on a busy machine. */
const SETTLED = { timeout: 4000 };

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderForm(post: (request: Request, body: unknown) => Response) {
  return renderFormPage(<NewExperimentPage />, "/experiments/new", {
    "POST /api/v1/experiments": post,
  });
}

describe("NewExperimentPage", () => {
  it("shows the services with their modes, unavailable ones with why", async () => {
    renderForm(() => json(202, {}));
    const modes = await screen.findByRole("list", { name: "go modes" });
    expect(within(modes).getByText(/unavailable: needs CAP_BPF/)).toBeTruthy();
    const processor = screen.getAllByLabelText("Processor")[1] as HTMLSelectElement;
    const ebpf = within(processor).getByRole("option", { name: /ebpf/ }) as HTMLOptionElement;
    expect(ebpf.disabled).toBe(true);
    expect(ebpf.textContent).toContain("needs CAP_BPF");
  });

  it("updates the estimate as the load changes", async () => {
    const user = userEvent.setup();
    renderForm(() => json(202, {}));
    // The API's estimate of the spec and how it adds up (the stub's: 5 rounds × (2 × 30 + 20) s).
    await screen.findByText(/about 6 min 40 s/, {}, SETTLED);
    expect(screen.getByText(/2 configurations × 5 rounds × 30 s each/)).toBeTruthy();
    expect(screen.getByText(/plus 20 s side by side per round/)).toBeTruthy();
    const rounds = screen.getByLabelText("Rounds");
    await user.clear(rounds);
    await user.type(rounds, "1");
    expect(await screen.findByText(/about 1 min 20 s/, {}, SETTLED)).toBeTruthy();
    // A spec the API cannot parse (no rounds) has no estimate: the footer says what it needs.
    await user.clear(rounds);
    await user.type(rounds, "0");
    expect(
      await screen.findByText(/Estimated time: — \(enter the load and rounds\)/, {}, SETTLED),
    ).toBeTruthy();
  });

  it("shows the backend's commands for the spec saved as a file, none while it does not parse", async () => {
    const user = userEvent.setup();
    const { calls } = renderForm(() => json(202, {}));
    const commands = await screen.findByTestId("spec-commands", {}, SETTLED);
    // The stub's answer (app/spec_commands.py builds and quotes them; its tests check how).
    expect(commands.textContent).toBe(
      `tracetax run spec.json\ncurl -s -XPOST ${window.location.origin}/api/v1/experiments \\\n  -H 'content-type: application/json' -d @spec.json`,
    );
    const asked = calls.filter((c) => c.url.pathname === "/api/v1/experiments/commands").at(-1);
    expect(asked?.url.searchParams.get("api")).toBe(window.location.origin);
    expect(asked?.body).toEqual(JSON.parse(screen.getByTestId("spec-json").textContent ?? "{}"));
    const rounds = screen.getByLabelText("Rounds");
    await user.clear(rounds);
    await user.type(rounds, "0");
    expect(await screen.findByText(/show once the API accepts the spec/, {}, SETTLED)).toBeTruthy();
    expect(screen.queryByTestId("spec-commands")).toBeNull();
    expect(calls.some(submitted)).toBe(false);
  });

  it("asks for a precision and says the estimate is a ceiling", async () => {
    const user = userEvent.setup();
    const { calls } = renderForm(() =>
      json(202, { id: "abc", status: "queued", queue_position: 0, estimated_seconds: 22 }),
    );
    await user.click(await screen.findByLabelText("Add rounds until the answer is precise"));
    await user.click(screen.getByLabelText("p99"));
    const wall = screen.getByLabelText("Max wall time (s)");
    await user.clear(wall);
    await user.type(wall, "900");
    expect((await screen.findByTestId("estimate-up-to", {}, SETTLED)).textContent).toContain(
      "up to 15 min",
    );
    await user.click(screen.getByRole("button", { name: "Start experiment" }));
    await waitFor(() => expect(calls.some(submitted)).toBe(true));
    const body = calls.find(submitted)?.body as { precision: unknown };
    expect(body.precision).toEqual({
      metrics: ["p50", "p99", "cpu_per_request_us"],
      half_width_pct: 5,
      max_wall_time_s: 900,
    });
  });

  it("shows the API's 422 messages beside their fields and in a summary", async () => {
    const user = userEvent.setup();
    const { calls } = renderForm(() =>
      invalid(
        {
          type: "greater_than",
          loc: ["body", "load", "rate"],
          msg: "Input should be greater than 0",
        },
        {
          type: "value_error",
          loc: ["body", "configurations", 1, "env"],
          msg: "only OTEL_* variables may be overridden",
        },
      ),
    );
    const rate = await screen.findByLabelText("Rate (req/s)");
    await user.clear(rate);
    await user.type(rate, "0");
    await user.click(screen.getByRole("button", { name: "Start experiment" }));

    const summary = await screen.findByRole("alert");
    expect(summary.textContent).toContain("load.rate");
    expect(rate.getAttribute("aria-invalid")).toBe("true");
    const describedBy = rate.getAttribute("aria-describedby") ?? "";
    expect(describedBy).toContain("field-load-rate-error");
    expect(document.getElementById("field-load-rate-error")?.textContent).toBe(
      "Input should be greater than 0",
    );
    const env = screen.getAllByRole("group", { name: "OTEL_* overrides" })[1];
    expect(within(env).getByText("only OTEL_* variables may be overridden")).toBeTruthy();
    expect(calls.find(submitted)?.body).toMatchObject({ load: { rate: 0 } });
    await waitFor(() => expect(document.activeElement).toBe(summary));
  });

  it("shows a 404 detail as a form error", async () => {
    const user = userEvent.setup();
    renderForm(() => json(404, { detail: "unknown service 'go'; available: java" }));
    await user.click(await screen.findByRole("button", { name: "Start experiment" }));
    expect((await screen.findByRole("alert")).textContent).toContain(
      "unknown service 'go'; available: java",
    );
  });

  it("edits overrides, moves the baseline and opens the new experiment", async () => {
    const user = userEvent.setup();
    const { calls, router } = renderForm(() =>
      json(202, { id: "abc", status: "queued", queue_position: 0, estimated_seconds: 22 }),
    );
    const cards = await screen.findAllByRole("listitem", { name: /^Configuration/ });
    const second = cards[1];
    await user.click(within(second).getByRole("button", { name: "Add variable" }));
    const name = within(second).getByLabelText("Variable 1 name");
    await user.type(name, "BSP_SCHEDULE_DELAY");
    await user.type(within(second).getByLabelText("Variable 1 value"), "200");
    await user.click(within(second).getByRole("radio", { name: "Baseline" }));
    await user.click(screen.getByRole("button", { name: "Start experiment" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/experiments/abc"));
    const body = calls.find(submitted)?.body as {
      configurations: { name: string; env: Record<string, string>; baseline: boolean }[];
    };
    expect(body.configurations).toEqual([
      { name: "none", processor: "none", env: {}, baseline: false, preset: "none" },
      {
        name: "batch-default",
        processor: "batch",
        env: { OTEL_BSP_SCHEDULE_DELAY: "200" },
        baseline: true,
        preset: "batch-default",
      },
    ]);
  });

  it("offers each configuration the service's concurrency knobs, previews and sends them", async () => {
    const user = userEvent.setup();
    const { calls } = renderForm(() =>
      invalid({
        type: "less_than_equal",
        loc: ["body", "configurations", 1, "concurrency", "threads"],
        msg: "Input should be less than or equal to 1024",
      }),
    );
    const cards = await screen.findAllByRole("listitem", { name: /^Configuration/ });
    const knobs = (card: HTMLElement) =>
      within(within(card).getByRole("group", { name: "Concurrency" }))
        .getAllByRole("spinbutton")
        .map((input) => input.id);
    // Go: GOMAXPROCS and cores; Java: request threads and cores.
    expect(knobs(cards[1])).toEqual([
      "field-configurations-1-concurrency-gomaxprocs",
      "field-configurations-1-concurrency-cores",
    ]);
    await user.click(screen.getByRole("radio", { name: /java/ }));
    const second = screen.getAllByRole("listitem", { name: /^Configuration/ })[1];
    expect(knobs(second)).toEqual([
      "field-configurations-1-concurrency-threads",
      "field-configurations-1-concurrency-cores",
    ]);
    const threads = within(second).getByLabelText("Threads");
    await user.type(threads, "2048");
    const preview = JSON.parse(screen.getByTestId("spec-json").textContent ?? "{}");
    expect(preview.configurations.map((c: { concurrency?: unknown }) => c.concurrency)).toEqual([
      undefined,
      { threads: 2048 },
    ]);

    await user.click(screen.getByRole("button", { name: "Start experiment" }));
    const summary = await screen.findByRole("alert");
    expect(
      within(summary)
        .getByRole("link", { name: "configurations.1.concurrency.threads" })
        .getAttribute("href"),
    ).toBe("#field-configurations-1-concurrency-threads");
    expect(threads.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById(`${threads.id}-error`)?.textContent).toBe(
      "Input should be less than or equal to 1024",
    );
    const body = calls.find(submitted)?.body as {
      configurations: { concurrency?: unknown }[];
    };
    expect(body.configurations[0]).not.toHaveProperty("concurrency");
    expect(body.configurations[1].concurrency).toEqual({ threads: 2048 });
  });

  it("shows an error when the catalog cannot be loaded", async () => {
    stubApi({
      "GET /api/v1/services": () => json(500, { detail: "database is locked" }),
      "GET /api/v1/presets": presets,
    });
    renderAt(<NewExperimentPage />);
    expect((await screen.findByRole("alert")).textContent).toContain("database is locked");
  });
});
