import { QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { routes } from "../../app/routes";
import {
  invalid,
  json,
  renderAt,
  renderFormPage,
  stubApi,
  testQueryClient,
} from "../../test/render";
import {
  CONFIRMATION_ID,
  outOfReachReport,
  PASTE,
  PROBE_ID,
  RUNG1_ID,
  RUNG2_ID,
  TUNING_ID,
  tightSpec,
  tuningDetail,
  tuningSummary,
  VERDICT,
} from "../../test/tuningFixtures";
import { NewTuningPage } from "./NewTuningPage";
import { TuningPage } from "./TuningPage";
import { TuningsPage } from "./TuningsPage";

// ECharts does not draw in jsdom: the figure (its name, caption) is real, the chart a stand-in
// that says what it was given.
vi.mock("../../lib/charts/EChart", () => import("../../test/chartStubs"));

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const at = { path: `/tunings/${TUNING_ID}`, pattern: "/tunings/:id" };
const detailRoute = `GET /api/v1/tunings/${TUNING_ID}`;

describe("TuningsPage", () => {
  it("lists the runs with their name, status, progress and creation", async () => {
    stubApi({
      "GET /api/v1/tunings": [
        tuningSummary({
          id: "running-1-aaaa",
          name: null,
          status: "running",
          progress: "rung 2 of 3: 3 candidates, 12 s, 3 rounds",
          experiment_ids: [PROBE_ID, RUNG1_ID],
          finished_at: null,
        }),
        tuningSummary(),
        tuningSummary({
          id: "failed-1-bbbb",
          name: "too tight",
          status: "failed",
          progress: "probe: no SDK against the SDK defaults, one round",
          error: "experiment 90be0000 failed",
        }),
      ],
    });
    renderAt(<TuningsPage />);
    const running = (await screen.findByRole("link", { name: "Tuning running-" })).closest(
      "tr",
    ) as HTMLElement;
    expect(within(running).getByText("running")).toBeTruthy();
    expect(within(running).getByText("rung 2 of 3: 3 candidates, 12 s, 3 rounds")).toBeTruthy();
    expect(within(running).getByRole("link").getAttribute("href")).toBe("/tunings/running-1-aaaa");

    const done = screen.getByRole("link", { name: "go at 200 req/s" }).closest("tr") as HTMLElement;
    expect(within(done).getByText("completed")).toBeTruthy();
    expect(within(done).getByText("finished: 4 experiments")).toBeTruthy();
    expect(within(done).getByRole("cell", { name: /2025/ }).querySelector("time")).toBeTruthy();

    const failed = screen.getByRole("link", { name: "too tight" }).closest("tr") as HTMLElement;
    expect(within(failed).getByText("failed")).toBeTruthy();
    expect(within(failed).getByText("experiment 90be0000 failed")).toBeTruthy();
  });

  it("has an empty state, and its place in the main navigation", async () => {
    stubApi({ "GET /api/v1/tunings": [] });
    const router = createMemoryRouter(routes, { initialEntries: ["/tunings"] });
    render(
      <QueryClientProvider client={testQueryClient()}>
        <RouterProvider router={router} />
      </QueryClientProvider>,
    );
    expect(await screen.findByText(/No tunings yet/)).toBeTruthy();
    expect(screen.getByRole("heading", { level: 1, name: "Tuning" })).toBeTruthy();
    const nav = screen.getByRole("navigation", { name: "Main" });
    expect(within(nav).getByRole("link", { name: "Tuning" }).getAttribute("aria-current")).toBe(
      "page",
    );
    expect(document.title).toBe("Tuning · TraceTax");
  });
});

describe("NewTuningPage", () => {
  const renderNewTuning = (post: () => Response) =>
    renderFormPage(<NewTuningPage />, "/tunings/new", { "POST /api/v1/tunings": post });

  const retype = async (user: ReturnType<typeof userEvent.setup>, label: string, text: string) => {
    const input = await screen.findByLabelText(label);
    await user.clear(input);
    if (text) await user.type(input, text);
  };

  it("starts a run with the body the API takes, then opens its page", async () => {
    const user = userEvent.setup();
    const { calls, router } = renderNewTuning(() =>
      json(202, { id: "new-tuning", status: "queued" }),
    );
    // The go demo has no zero-code agent: offered, but not selectable.
    const launch = (await screen.findByLabelText("Launch to tune")) as HTMLSelectElement;
    expect(
      (within(launch).getByRole("option", { name: /^agent/ }) as HTMLOptionElement).disabled,
    ).toBe(true);
    expect(screen.getByRole("radio", { name: /^Your service/ })).toBeTruthy();

    await user.click(screen.getByRole("radio", { name: /java/ }));
    await user.selectOptions(launch, "agent");
    await user.type(screen.getByLabelText("Name (optional)"), "java burst");
    await retype(user, "Rate (req/s)", "500");
    await retype(user, "Connections", "64");
    await user.click(screen.getByRole("checkbox", { name: /A burst in the measured phase/ }));
    await retype(user, "Burst multiplier", "8");
    await retype(user, "p99 overhead (%)", "12");
    await retype(user, "Max lost spans", "10");
    await retype(user, "Confirmation rounds", "6");
    await retype(user, "Wall time (s)", "900");
    expect(screen.getByText("about 15 min")).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Start tuning" }));

    await vi.waitFor(() => expect(router.state.location.pathname).toBe("/tunings/new-tuning"));
    expect(calls.find((c) => c.method === "POST")?.body).toEqual({
      name: "java burst",
      service: { kind: "demo", language: "java" },
      processor: "agent",
      load: {
        rate: 500,
        warmup_s: 5,
        duration_s: 20,
        connections: 64,
        burst: { start_s: 5, duration_s: 3, multiplier: 8 },
      },
      budgets: { p99_overhead_pct: 12, cpu_overhead_pct: 20, max_lost_spans: 10 },
      rounds: 3,
      confirm_rounds: 6,
      wall_time_s: 900,
    });
  });

  it("sends no burst unless asked, and leaves blanks to the API", async () => {
    const user = userEvent.setup();
    const { calls } = renderNewTuning(() => json(202, { id: "t", status: "queued" }));
    await retype(user, "Warm-up (s)", "");
    await retype(user, "Rounds", "");
    await user.click(screen.getByRole("button", { name: "Start tuning" }));
    await vi.waitFor(() => expect(calls.some((c) => c.method === "POST")).toBe(true));
    const body = calls.find((c) => c.method === "POST")?.body as Record<string, unknown>;
    expect(body.load).toEqual({ rate: 200, duration_s: 20, connections: 16 });
    expect("rounds" in body).toBe(false);
    expect("name" in body).toBe(false);
    expect(body.processor).toBe("batch");
  });

  it("tunes your service with its requests and concurrency, its 422 beside the fields", async () => {
    const user = userEvent.setup();
    const portMessage = "port 8080 (service.port) is already in use, held by pid 123 (java)";
    const coresMessage = "4 cores asked: the service has 2 core(s) here (2,3)";
    const { calls } = renderNewTuning(() =>
      invalid(
        { loc: ["body", "service", "command", "port"], msg: portMessage, type: "value_error" },
        { loc: ["body", "concurrency", "cores"], msg: coresMessage, type: "value_error" },
      ),
    );
    // Go demo: GOMAXPROCS and cores.
    const concurrency = await screen.findByRole("group", { name: "Concurrency" });
    expect(
      within(concurrency)
        .getAllByRole("spinbutton")
        .map((input) => input.id),
    ).toEqual(["field-concurrency-gomaxprocs", "field-concurrency-cores"]);
    await user.click(screen.getByRole("radio", { name: /^Your service/ }));
    const own = screen.getByRole("group", { name: "Your service" });
    await user.click(within(own).getByLabelText("Argument 0 (the program)"));
    await user.paste("./checkout");
    await user.click(within(own).getByLabelText("Port"));
    await user.paste("8080");
    // Python (the default): its zero-code agent can be tuned; cores is its only knob.
    expect(
      within(concurrency)
        .getAllByRole("spinbutton")
        .map((input) => input.id),
    ).toEqual(["field-concurrency-cores"]);
    await user.selectOptions(screen.getByLabelText("Launch to tune"), "agent");
    // Go: no zero-code agent to tune, so back to its own SDK; GOMAXPROCS is offered.
    await user.selectOptions(within(own).getByLabelText("Language"), "go");
    expect((screen.getByLabelText("Launch to tune") as HTMLSelectElement).value).toBe("batch");
    await user.type(within(concurrency).getByLabelText("GOMAXPROCS"), "2");
    await user.type(within(concurrency).getByLabelText("Cores"), "4");
    await user.selectOptions(screen.getByLabelText("Method"), "POST");
    await retype(user, "Path 1", "/orders");
    await user.click(screen.getByRole("button", { name: "Start tuning" }));

    const summary = await screen.findByRole("alert");
    expect(within(summary).getByRole("link", { name: "service.port" }).getAttribute("href")).toBe(
      "#field-service-port",
    );
    expect(screen.getByLabelText("Port").getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById("field-service-port-error")?.textContent).toBe(portMessage);
    expect(within(concurrency).getByLabelText("Cores").getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById("field-concurrency-cores-error")?.textContent).toBe(
      coresMessage,
    );
    // Beside the port only, not beside the service choice as well (the summary says it in a line
    // of its own: "service.port: …").
    expect(screen.getAllByText(portMessage)).toHaveLength(1);
    const body = calls.find((c) => c.method === "POST")?.body as Record<string, unknown>;
    expect(body.service).toEqual({
      kind: "command",
      argv: ["./checkout"],
      port: 8080,
      health_path: "/healthz",
      language: "go",
      startup_timeout_s: 60,
    });
    expect(body.processor).toBe("batch");
    expect(body.concurrency).toEqual({ gomaxprocs: 2, cores: 4 });
    expect(body.load).toEqual({
      rate: 200,
      warmup_s: 5,
      duration_s: 20,
      connections: 16,
      method: "POST",
      paths: [{ path: "/orders", weight: 1 }],
      headers: {},
    });
  });

  it("shows the API's 422 beside wall time and the burst, and in the summary", async () => {
    const user = userEvent.setup();
    const tooSmall =
      "Value error, too small for even one candidate: at least 412 s for this load, 3 rounds per rung and 5 confirmation rounds";
    const pastPhase =
      "Value error, the burst ends at 25 s, after the measured phase (duration_s 20): move burst.start_s or shorten burst.duration_s";
    renderNewTuning(() =>
      invalid(
        { loc: ["body", "load"], msg: pastPhase, type: "value_error" },
        { loc: ["body", "wall_time_s"], msg: tooSmall, type: "value_error" },
      ),
    );
    await user.click(await screen.findByRole("checkbox", { name: /A burst/ }));
    await retype(user, "Burst start (s)", "22");
    await retype(user, "Wall time (s)", "60");
    await user.click(screen.getByRole("button", { name: "Start tuning" }));

    const beside = await screen.findByText(tooSmall);
    expect(beside.id).toBe("field-wall_time_s-error");
    expect(screen.getByLabelText("Wall time (s)").getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByText(pastPhase).id).toBe("field-load");

    const summary = screen.getByRole("alert");
    expect(
      within(summary).getByRole("heading", { name: "The tuning was not started" }),
    ).toBeTruthy();
    expect(within(summary).getByRole("link", { name: "wall_time_s" }).getAttribute("href")).toBe(
      "#field-wall_time_s",
    );
    expect(within(summary).getByRole("link", { name: "load" }).getAttribute("href")).toBe(
      "#field-load",
    );
  });
});

describe("TuningPage", () => {
  it("shows the trade-off as a named chart with the same figures in a table, the front marked", async () => {
    stubApi({ [detailRoute]: tuningDetail() });
    renderAt(<TuningPage />, at);

    const figure = await screen.findByRole("figure", {
      name: /Trade-off: p99 overhead against spans kept/,
    });
    const series = JSON.parse(within(figure).getByTestId("echart").dataset.series ?? "");
    expect(series).toEqual([
      { name: "Pareto front", points: ["q512-b64-d200", "q1024-b256-d1000"] },
      { name: "Off the front", points: [] },
      { name: "Recommended", points: ["q1024-b256-d1000"] },
    ]);
    expect(figure.textContent).toContain("Not plotted, their overhead unknown: q4096-b1024-d5000.");
    expect(figure.textContent).toContain("peak RSS, 42 MiB to 45.3 MiB");

    const table = screen.getByTestId("tradeoff-table");
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows.map((row) => row.dataset.setting)).toEqual([
      "q512-b64-d200",
      "q1024-b256-d1000",
      "q4096-b1024-d5000",
    ]);
    // Each candidate at its last rung: the fast one's second-rung figures, not its first.
    const fast = within(rows[0]);
    expect(rows[0].dataset.front).toBe("true");
    expect(fast.getByText("on the front")).toBeTruthy();
    expect(fast.getByText("+3.5%")).toBeTruthy();
    expect(fast.getByText("98.0%")).toBeTruthy();
    expect(fast.getByText("80")).toBeTruthy();
    expect(fast.getByRole("link", { name: "rung 2, 12 s a phase" }).getAttribute("href")).toBe(
      `/experiments/${RUNG2_ID}`,
    );
    expect(within(rows[1]).getByText("recommended")).toBeTruthy();
    expect(within(rows[1]).getByText("on the front")).toBeTruthy();
    expect(rows[2].dataset.front).toBeUndefined();
    expect(within(rows[2]).getByText("off the front")).toBeTruthy();
  });

  it("shows null figures as unknown, never 0", async () => {
    stubApi({ [detailRoute]: tuningDetail() });
    renderAt(<TuningPage />, at);
    const row = (await screen.findByTestId("tradeoff-table")).querySelector(
      '[data-setting="q4096-b1024-d5000"]',
    ) as HTMLElement;
    const cells = within(row)
      .getAllByRole("cell")
      .map((cell) => cell.textContent);
    // front, p99, CPU, kept, lost, memory, last measured
    expect(cells).toEqual([
      "off the front",
      "unknown",
      "unknown",
      "90.0%",
      "unknown",
      "unknown",
      "rung 1, 6 s a phase",
    ]);
  });

  it("recommends a setting with its confirmation and three blocks to copy", async () => {
    const user = userEvent.setup();
    stubApi({ [detailRoute]: tuningDetail() });
    renderAt(<TuningPage />, at);

    expect((await screen.findByTestId("recommended")).textContent).toContain(
      "Set q1024-b256-d1000: it meets every budget",
    );
    const verdict = screen.getByTestId("verdict");
    expect(verdict.textContent).toContain(VERDICT);
    expect(within(verdict).getByRole("link").getAttribute("href")).toBe(
      `/experiments/${CONFIRMATION_ID}`,
    );

    for (const [key, text] of Object.entries(PASTE)) {
      const block = screen.getByTestId(`paste-${key}`);
      expect(block.querySelector("pre")?.textContent).toBe(text);
    }
    const env = screen.getByTestId("paste-env");
    await user.click(within(env).getByRole("button", { name: "Copy Environment variables" }));
    expect(await within(env).findByText("Copied.")).toBeTruthy();
    expect(await navigator.clipboard.readText()).toBe(PASTE.env);

    // Where the clipboard cannot be written, the block is selected and the reader told.
    vi.spyOn(navigator.clipboard, "writeText").mockRejectedValue(new Error("denied"));
    const kubernetes = screen.getByTestId("paste-kubernetes");
    await user.click(within(kubernetes).getByRole("button", { name: "Copy Kubernetes env" }));
    expect(await within(kubernetes).findByText(/Could not copy here/)).toBeTruthy();
    expect(globalThis.getSelection()?.toString()).toBe(PASTE.kubernetes);

    expect(screen.queryByTestId("out-of-reach")).toBeNull();
    const experiments = screen.getByRole("region", { name: "Experiments" });
    expect(
      within(experiments)
        .getAllByRole("link")
        .map((link) => link.textContent),
    ).toEqual([
      `probe: ${PROBE_ID.slice(0, 8)}`,
      `rung 1 (6 s a phase): ${RUNG1_ID.slice(0, 8)}`,
      `rung 2 (12 s a phase): ${RUNG2_ID.slice(0, 8)}`,
      `confirmation: ${CONFIRMATION_ID.slice(0, 8)}`,
    ]);
  });

  it("names each budget out of reach and the closest setting, never a setting to paste", async () => {
    stubApi({ [detailRoute]: tuningDetail({ spec: tightSpec, report: outOfReachReport() }) });
    renderAt(<TuningPage />, at);
    const section = await screen.findByTestId("out-of-reach");
    expect(
      within(section).getByRole("heading", { name: "No setting met the budgets" }),
    ).toBeTruthy();
    const item = section.querySelector('[data-budget="p99_overhead_pct"]') as HTMLElement;
    expect(item.textContent).toBe(
      "p99 overhead ≤ 2%: no setting met it; closest q512-b64-d200, over by 1.5",
    );
    expect(within(section).getByTestId("closest").textContent).toContain("q512-b64-d200");
    expect(within(section).getByTestId("closest").textContent).toContain("not recommended");
    expect(screen.queryByRole("heading", { name: "Recommendation" })).toBeNull();
    expect(screen.queryByRole("button", { name: /^Copy/ })).toBeNull();
    expect(document.querySelector("pre")).toBeNull();
    expect(screen.queryByText("recommended")).toBeNull();
  });

  it("shows a running run's progress line and experiments, and cancels it", async () => {
    const user = userEvent.setup();
    const calls = stubApi({
      [detailRoute]: tuningDetail({
        status: "running",
        progress: "rung 1 of 3: 6 candidates, 6 s, 3 rounds",
        experiment_ids: [PROBE_ID, RUNG1_ID],
        finished_at: null,
        report: null,
      }),
      [`POST /api/v1/tunings/${TUNING_ID}/cancel`]: tuningSummary({ status: "running" }),
    });
    renderAt(<TuningPage />, at);
    expect((await screen.findByTestId("tuning-progress")).textContent).toContain(
      "rung 1 of 3: 6 candidates, 6 s, 3 rounds",
    );
    expect(screen.getByRole("link", { name: `probe: ${PROBE_ID.slice(0, 8)}` })).toBeTruthy();
    expect(
      screen
        .getByRole("link", { name: `experiment 2: ${RUNG1_ID.slice(0, 8)}` })
        .getAttribute("href"),
    ).toBe(`/experiments/${RUNG1_ID}`);
    expect(screen.queryByTestId("tradeoff-table")).toBeNull();
    await user.click(screen.getByRole("button", { name: "Cancel tuning" }));
    await vi.waitFor(() =>
      expect(calls.some((c) => c.method === "POST" && c.url.pathname.endsWith("/cancel"))).toBe(
        true,
      ),
    );
  });

  it("says why a cancelled run has no report, and shows the API's 404", async () => {
    stubApi({
      [detailRoute]: tuningDetail({
        status: "cancelled",
        error: "cancelled by request: the experiments it finished are kept",
        report: null,
      }),
    });
    renderAt(<TuningPage />, at);
    expect(await screen.findByText(/No report: the run was cancelled/)).toBeTruthy();
    expect(screen.getByText(/cancelled by request/)).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Cancel tuning" })).toBeNull();
    cleanup();
    stubApi({ [detailRoute]: () => json(404, { detail: `no tuning ${TUNING_ID}` }) });
    renderAt(<TuningPage />, at);
    expect((await screen.findByRole("alert")).textContent).toContain(`no tuning ${TUNING_ID}`);
  });
});
