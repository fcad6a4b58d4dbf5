import { cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ExperimentSummary } from "../../api/types";
import {
  CHECK_ID,
  checkExperiment,
  checkStatus,
  inconclusiveLine,
  presets,
} from "../../test/fixtures";
import {
  PIPELINE_CHECK_ID,
  pipelineCheckExperiment,
  pipelineCheckStatus,
  pipelineVariants,
} from "../../test/pipelineFixtures";
import {
  checkCommandsAnswer,
  invalid,
  json,
  pipelineCommands,
  queued,
  renderAt,
  renderFormPage,
  stubApi,
  submitted,
} from "../../test/render";
import { CheckPage } from "./CheckPage";
import { ChecksPage } from "./ChecksPage";
import { NewCheckPage } from "./NewCheckPage";

/** Long enough for a form to settle and the backend stub to answer on a busy machine. */
const SETTLED = { timeout: 4000 };

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const experiment = checkExperiment();
const { spec: _spec, environment: _environment, rounds: _rounds, ...summary } = experiment;
const experimentSummary: ExperimentSummary = summary;
const at = { path: `/checks/${CHECK_ID}`, pattern: "/checks/:id" };
const renderNewCheck = (post: () => Response) =>
  renderFormPage(<NewCheckPage />, "/checks/new", { "POST /api/v1/checks": post });

describe("ChecksPage", () => {
  it("lists checks with their verdicts, names and budgets", async () => {
    stubApi({
      "GET /api/v1/checks": [
        checkStatus(),
        checkStatus({
          id: "running-1",
          experiment_id: "other",
          status: "running",
          verdict: null,
          overall: null,
        }),
      ],
      "GET /api/v1/experiments": [experimentSummary],
    });
    renderAt(<ChecksPage />);
    const link = await screen.findByRole("link", { name: "check: batch-tuned vs none" });
    expect(link.getAttribute("href")).toBe(`/checks/${CHECK_ID}`);
    const row = link.closest("tr") as HTMLElement;
    expect(within(row).getByText("fail")).toBeTruthy();
    expect(within(row).getByText(/p99 latency overhead ≤ 15 %/)).toBeTruthy();
    const running = screen
      .getByRole("link", { name: "Check running-" })
      .closest("tr") as HTMLElement;
    expect(within(running).getByText("running")).toBeTruthy();
  });

  it("shows a pipeline check as one, with its pipeline budget", async () => {
    const { spec: _s, environment: _e, rounds: _r, ...pipelineSummary } = pipelineCheckExperiment();
    stubApi({
      "GET /api/v1/checks": [pipelineCheckStatus(), checkStatus()],
      "GET /api/v1/experiments": [pipelineSummary, experimentSummary],
    });
    renderAt(<ChecksPage />);
    const link = await screen.findByRole("link", { name: "check: batch-default vs passthrough" });
    const row = link.closest("tr") as HTMLElement;
    expect(within(row).getByText("Collector pipeline")).toBeTruthy();
    expect(within(row).getByText("error")).toBeTruthy();
    expect(within(row).getByText("strict")).toBeTruthy();
    expect(
      within(row).getByText(
        "Collector peak RSS overhead ≤ 50 %; Spans lost in the pipeline ≤ 0 spans",
      ),
    ).toBeTruthy();
    const service = screen
      .getByRole("link", { name: "check: batch-tuned vs none" })
      .closest("tr") as HTMLElement;
    expect(within(service).getByText("go")).toBeTruthy();
  });

  it("asks for a page of checks at a time", async () => {
    const user = userEvent.setup();
    const calls = stubApi({
      "GET /api/v1/checks": (request: Request) => {
        const limit = Number(new URL(request.url).searchParams.get("limit"));
        return json(
          200,
          Array.from({ length: limit }, (_, i) =>
            checkStatus({ id: `check-${i}`, experiment_id: `e-${i}` }),
          ),
        );
      },
      "GET /api/v1/experiments": [],
    });
    renderAt(<ChecksPage />);
    expect(await screen.findAllByRole("link", { name: /^Check check-/ })).toHaveLength(10);
    await user.click(screen.getByRole("button", { name: "Show 10 more" }));
    expect(await screen.findAllByRole("link", { name: /^Check check-/ })).toHaveLength(20);
    expect(calls.map((c) => c.url.searchParams.get("limit")).filter(Boolean)).toEqual(["10", "20"]);
  });

  it("has an empty state and an error state", async () => {
    stubApi({ "GET /api/v1/checks": [], "GET /api/v1/experiments": [] });
    renderAt(<ChecksPage />);
    expect(await screen.findByText(/No checks yet/)).toBeTruthy();
    cleanup();
    stubApi({
      "GET /api/v1/checks": () => json(500, { detail: "database is locked" }),
      "GET /api/v1/experiments": [],
    });
    renderAt(<ChecksPage />);
    expect((await screen.findByRole("alert")).textContent).toContain("database is locked");
  });
});

describe("CheckPage", () => {
  it("shows each budget line's measured value, interval and verdict, the JUnit and the commands", async () => {
    const command =
      "tracetax check --api x \\\n  --service go --baseline none --candidate batch-tuned";
    const calls = stubApi({
      [`GET /api/v1/checks/${CHECK_ID}`]: checkStatus(),
      [`GET /api/v1/experiments/${experiment.id}`]: experiment,
      [`GET /api/v1/checks/${CHECK_ID}/commands`]: checkCommandsAnswer(
        { subject: "service" },
        command,
      ),
    });
    renderAt(<CheckPage />, at);
    const p99 = await screen.findByRole("row", { name: /^p99 latency overhead/ });
    expect(within(p99).getByText("≤ 15 %")).toBeTruthy();
    expect(within(p99).getByText("+42 %")).toBeTruthy();
    expect(within(p99).getByText("[\u2212100 %, +351 %]")).toBeTruthy();
    expect(within(p99).getByText("pass")).toBeTruthy();
    expect(
      within(p99).getByText(
        "+1.70 ms p99 (\u22124.00 ms to +14.0 ms), +42.4% — no significant change",
      ),
    ).toBeTruthy();
    expect(within(p99).getByText(/one-sided p = 0.310 after Holm/)).toBeTruthy();
    const dropped = screen.getByRole("row", { name: /^Spans dropped in the SDK/ });
    expect(within(dropped).getByText("3,000 spans")).toBeTruthy();
    expect(within(dropped).getByText("fail")).toBeTruthy();
    expect(within(dropped).getByText("3,000 dropped > budget 0")).toBeTruthy();
    const junit = screen.getByRole("link", { name: "Download JUnit XML" });
    expect(junit.getAttribute("href")).toBe(`/api/v1/checks/${CHECK_ID}?format=junit`);
    expect(junit.hasAttribute("download")).toBe(true);
    // The commands are the backend's, for this page's origin.
    expect((await screen.findByTestId("cli-command")).textContent).toBe(command);
    expect(screen.getByTestId("curl-command").textContent).toContain("/api/v1/checks");
    const asked = calls.find((c) => c.url.pathname.endsWith("/commands"));
    expect(asked?.url.searchParams.get("api")).toBe(globalThis.location.origin);
    expect(screen.getByText("batch-tuned vs none on go")).toBeTruthy();
  });

  it("shows an inconclusive line distinctly, with how many rounds would resolve it", async () => {
    const check = checkStatus({
      budget: { p50_added_ms: 0.5, max_dropped_spans: 0 },
      verdict: {
        verdict: "error",
        strict: false,
        lines: [
          inconclusiveLine(),
          {
            name: "isolation",
            budget: 0,
            measured: { estimate: 1, low: null, high: null },
            verdict: "unknown",
            reason: "other processes ran on the service's cores during: candidate round 1",
          },
        ],
      },
    });
    stubApi({
      [`GET /api/v1/checks/${CHECK_ID}`]: check,
      [`GET /api/v1/experiments/${experiment.id}`]: experiment,
      "GET /api/v1/presets": presets,
    });
    renderAt(<CheckPage />, at);
    const line = await screen.findByRole("row", { name: /^p50 latency added/ });
    expect(line.className).toContain("line-inconclusive");
    const badge = within(line).getByText("inconclusive");
    expect(badge.className).toContain("badge-verdict-inconclusive");
    expect(within(line).getByText("≤ 0.5 ms")).toBeTruthy();
    expect(within(line).getByText("+300 µs")).toBeTruthy();
    expect(within(line).getByText("[\u2212100 µs, +700 µs]")).toBeTruthy();
    expect(within(line).getByText("about 12 rounds would resolve it").className).toBe("line-hint");
    expect(line.textContent).toContain(inconclusiveLine().reason);
    expect(line.textContent).toContain(inconclusiveLine().summary);
    expect(screen.getByTestId("inconclusive").textContent).toContain("One line is inconclusive");
    const isolation = screen.getByRole("row", { name: /^Isolation of the service's cores/ });
    expect(within(isolation).getByText("1 flagged round")).toBeTruthy();
    expect(within(isolation).getByText("unknown")).toBeTruthy();
  });

  it("waits for a running check, without a JUnit link", async () => {
    stubApi({
      [`GET /api/v1/checks/${CHECK_ID}`]: checkStatus({ status: "running", verdict: null }),
      [`GET /api/v1/experiments/${experiment.id}`]: experiment,
      "GET /api/v1/presets": presets,
    });
    renderAt(<CheckPage />, at);
    expect(await screen.findByText(/the verdict comes when it finishes/)).toBeTruthy();
    expect(screen.queryByRole("link", { name: "Download JUnit XML" })).toBeNull();
  });

  it("shows a pipeline check's lines, its variants and its --collector command", async () => {
    const pipelineExperiment = pipelineCheckExperiment();
    const command = [
      `tracetax check --api ${globalThis.location.origin}`,
      "  --collector --baseline passthrough --candidate batch-default",
    ].join(" \\\n");
    const calls = stubApi({
      [`GET /api/v1/checks/${PIPELINE_CHECK_ID}`]: pipelineCheckStatus(),
      [`GET /api/v1/experiments/${pipelineExperiment.id}`]: pipelineExperiment,
      [`GET /api/v1/checks/${PIPELINE_CHECK_ID}/commands`]: checkCommandsAnswer(
        { subject: "collector" },
        command,
      ),
    });
    renderAt(<CheckPage />, { path: `/checks/${PIPELINE_CHECK_ID}`, pattern: "/checks/:id" });
    const rss = await screen.findByRole("row", { name: /^Collector peak RSS overhead/ });
    expect(within(rss).getByText("≤ 50 %")).toBeTruthy();
    expect(within(rss).getByText("+0.2 %")).toBeTruthy();
    expect(within(rss).getByText("no interval")).toBeTruthy();
    expect(within(rss).getByText("pass")).toBeTruthy();
    expect(
      within(rss).getByText("+108.0 KiB peak RSS, +0.2% — no significant change"),
    ).toBeTruthy();
    const lost = screen.getByRole("row", { name: /^Spans lost in the pipeline/ });
    expect(within(lost).getByText("0 spans")).toBeTruthy();
    expect(within(lost).getByText("counted")).toBeTruthy();
    expect(within(lost).getByText("0 lost in the pipeline <= budget 0")).toBeTruthy();
    const isolation = await screen.findByRole("row", {
      name: /^Isolation of the lab Collector's cores/,
    });
    expect(within(isolation).getByText("1 flagged round")).toBeTruthy();
    // The variants, not a service and processors.
    const facts = document.querySelector(".spec-summary") as HTMLElement;
    expect(facts.textContent).toContain("Collector pipeline");
    expect(facts.textContent).toContain("Candidate variantbatch-default");
    expect(facts.textContent).toContain("Baseline variantpassthrough");
    expect(facts.textContent).toContain("1,000 spans/s, 3 s measured, 1 round");
    expect(facts.textContent).not.toContain(" on collector");
    expect((await screen.findByTestId("cli-command")).textContent).toBe(command);
    expect(screen.getByTestId("curl-command").textContent).toContain('"subject":"collector"');
    expect(screen.getByRole("heading", { name: "tracetax check --collector" })).toBeTruthy();
    // No presets are needed for a pipeline's request.
    expect(calls.some((c) => c.url.pathname === "/api/v1/presets")).toBe(false);
  });

  it("shows the API's 404 detail for an unknown check", async () => {
    stubApi({
      [`GET /api/v1/checks/${CHECK_ID}`]: () => json(404, { detail: `no check ${CHECK_ID}` }),
    });
    renderAt(<CheckPage />, at);
    expect((await screen.findByRole("alert")).textContent).toContain(`no check ${CHECK_ID}`);
  });
});

describe("NewCheckPage", () => {
  it("queues the check from the keyboard and opens its page", async () => {
    const user = userEvent.setup();
    const { calls, router } = renderNewCheck(() => queued("new-check", 30));
    await user.selectOptions(await screen.findByLabelText("Candidate"), "batch-tuned");
    await user.clear(screen.getByLabelText("Rounds"));
    await user.type(screen.getByLabelText("Rounds"), "1");
    await user.clear(screen.getByLabelText("Max CPU per request overhead (%)"));
    screen.getByRole("button", { name: "Run check" }).focus();
    await user.keyboard("{Enter}");
    await vi.waitFor(() => expect(router.state.location.pathname).toBe("/checks/new-check"));
    const body = calls.find(submitted)?.body as Record<string, unknown>;
    expect(body).toMatchObject({
      service: { kind: "demo", language: "go" },
      baseline: { preset: "none" },
      candidate: { preset: "batch-tuned" },
      rounds: 1,
      budget: { p99_overhead_pct: 15, max_dropped_spans: 0 },
    });
  });

  it("sends the new budget lines, relative and absolute", async () => {
    const user = userEvent.setup();
    const { calls } = renderNewCheck(() => queued("new-check", 30));
    await user.type(await screen.findByLabelText("Max p50 overhead (%)"), "5");
    await user.type(screen.getByLabelText("Max p99 added (ms)"), "2");
    await user.type(screen.getByLabelText("Max CPU per request added (µs)"), "40");
    await user.click(screen.getByRole("button", { name: "Run check" }));
    await vi.waitFor(() => expect(calls.some(submitted)).toBe(true));
    const body = calls.find(submitted)?.body as Record<string, unknown>;
    expect(body.budget).toEqual({
      p50_overhead_pct: 5,
      p99_overhead_pct: 15,
      cpu_overhead_pct: 20,
      p99_added_ms: 2,
      cpu_added_us: 40,
      max_dropped_spans: 0,
    });
  });

  it("sends a cost budget with its request rate, and shows a bad rate beside its field", async () => {
    const user = userEvent.setup();
    const { calls } = renderNewCheck(() =>
      invalid({
        type: "greater_than",
        loc: ["body", "budget", "cost", "requests_per_s"],
        msg: "Input should be greater than 0",
      }),
    );
    await user.type(await screen.findByLabelText("Max bytes per request"), "2500");
    await user.type(screen.getByLabelText("Max $/month"), "40");
    const rate = screen.getByLabelText("Traffic $/month is priced at (req/s)");
    await user.type(rate, "0");
    await user.click(screen.getByRole("button", { name: "Run check" }));
    expect((await screen.findByText("Input should be greater than 0")).id).toBe(
      "field-budget-cost-requests_per_s-error",
    );
    const body = calls.find(submitted)?.body as Record<string, unknown>;
    expect(body.budget).toMatchObject({
      max_bytes_per_request: 2500,
      max_usd_per_month: 40,
      cost: { requests_per_s: 0 },
    });
  });

  it("shows a budget the calibration cannot resolve beside its field", async () => {
    const user = userEvent.setup();
    const message =
      "budget 1% is tighter than this machine resolves for p99 with 3 rounds at this load (noise floor ±8.7%, from the calibration); about 40 rounds would resolve it, or use a longer phase";
    renderNewCheck(() =>
      invalid({ type: "value_error", loc: ["body", "budget", "p99_overhead_pct"], msg: message }),
    );
    const p99 = await screen.findByLabelText("Max p99 overhead (%)");
    await user.clear(p99);
    await user.type(p99, "1");
    await user.click(screen.getByRole("button", { name: "Run check" }));
    expect((await screen.findByText(message)).id).toBe("field-budget-p99_overhead_pct-error");
    expect(p99.getAttribute("aria-invalid")).toBe("true");
  });

  it("shows the API's 422 beside the field", async () => {
    const user = userEvent.setup();
    renderNewCheck(() =>
      invalid({
        loc: ["body", "load", "rate"],
        msg: "Input should be greater than 0",
        type: "greater_than",
      }),
    );
    const rate = await screen.findByLabelText("Rate (req/s)");
    await user.clear(rate);
    await user.type(rate, "0");
    await user.click(screen.getByRole("button", { name: "Run check" }));
    expect((await screen.findByText("Input should be greater than 0")).id).toBe(
      "field-load-rate-error",
    );
    expect(screen.getByRole("heading", { name: "The check was not queued" })).toBeTruthy();
  });

  it("queues a Collector pipeline check, as tracetax check --collector would", async () => {
    const user = userEvent.setup();
    const calls = stubApi({
      "GET /api/v1/pipelines": pipelineVariants,
      "POST /api/v1/checks": () => queued("pipe-check", 48),
    });
    const { router } = renderAt(<NewCheckPage />, {
      path: "/checks/new",
      pattern: "/checks/new",
    });
    await user.click(await screen.findByRole("radio", { name: "A Collector pipeline" }));
    expect(router.state.location.search).toBe("?subject=collector");
    const baseline = await screen.findByLabelText("Baseline variant");
    expect(baseline).toHaveProperty("value", "passthrough");
    expect(screen.getByLabelText("Candidate variant")).toHaveProperty("value", "batch-default");
    await user.selectOptions(screen.getByLabelText("Candidate variant"), "batch-tuned");
    for (const [label, value] of [
      ["Spans per second", "2000"],
      ["Measured (s)", "5"],
      ["Rounds", "3"],
      ["Max peak RSS overhead (%)", "20"],
    ]) {
      const input = screen.getByLabelText(label);
      await user.clear(input);
      await user.type(input, value);
    }
    await user.click(screen.getByRole("checkbox", { name: /Strict/ }));
    // The API's estimate of the request (the stub's: 3 rounds × 80 s).
    expect(await screen.findByText(/about 4 min/, {}, SETTLED)).toBeTruthy();
    // The command is the backend's for the request the form would send (the stub's spelling).
    expect((await screen.findByTestId("cli-preview", {}, SETTLED)).textContent).toContain(
      "--collector --baseline passthrough --candidate batch-tuned",
    );
    const asked = calls.filter((c) => c.url.pathname === "/api/v1/checks/commands").at(-1);
    expect(asked?.body).toMatchObject({ load: { spans_per_s: 2000, duration_s: 5 }, rounds: 3 });
    await user.click(screen.getByRole("button", { name: "Run check" }));
    await vi.waitFor(() => expect(router.state.location.pathname).toBe("/checks/pipe-check"));
    expect(calls.find(submitted)?.body).toEqual({
      subject: "collector",
      baseline: { pipeline: "passthrough" },
      candidate: { pipeline: "batch-tuned" },
      load: { spans_per_s: 2000, warmup_s: 2, duration_s: 5 },
      budget: { cores_per_10k_overhead_pct: 30, rss_overhead_pct: 20, max_lost_spans: 0 },
      rounds: 3,
      strict: true,
    });
  });

  it("checks a config file of one's own, the API's 422 beside its field", async () => {
    const user = userEvent.setup();
    const calls = stubApi({
      "GET /api/v1/pipelines": pipelineVariants,
      "POST /api/v1/checks/commands": (request: Request, body: unknown) =>
        (body as { candidate: { name?: string } }).candidate.name === "my-overlay"
          ? json(
              200,
              checkCommandsAnswer(
                body as Record<string, unknown>,
                "cat > tracetax-check.json <<'EOF'\n…\nEOF\ntracetax check --spec tracetax-check.json",
                ["the candidate's config file as named (the CLI names a *.yaml file after it)"],
              ),
            )
          : pipelineCommands(request, body),
      "POST /api/v1/checks": () =>
        invalid(
          {
            type: "value_error",
            loc: ["body", "candidate", "config_file"],
            msg: "invalid Collector pipeline config: cannot read the config file",
          },
          {
            type: "value_error",
            loc: ["body", "budget"],
            msg: "Value error, p99_overhead_pct does not apply to a check of a Collector pipeline",
          },
        ),
    });
    renderAt(<NewCheckPage />, {
      path: "/checks/new?subject=collector",
      pattern: "/checks/new",
    });
    await user.selectOptions(
      await screen.findByLabelText("Candidate variant"),
      "A config file of your own…",
    );
    await user.type(screen.getByLabelText("Candidate variant: config file"), "/srv/otel/mine.yaml");
    expect(screen.getByLabelText("Candidate variant: name").getAttribute("placeholder")).toBe(
      "mine",
    );
    expect(await screen.findByText(/--candidate \/srv\/otel\/mine.yaml/, {}, SETTLED)).toBeTruthy();
    await user.type(screen.getByLabelText("Candidate variant: name"), "my-overlay");
    // The backend says why its flags cannot say a request, and the form shows it.
    expect(
      await screen.findByText(
        /Its flags cannot say the candidate's config file as named/,
        {},
        SETTLED,
      ),
    ).toBeTruthy();
    expect(screen.getByTestId("cli-preview").textContent).toContain("--spec tracetax-check.json");
    await user.click(screen.getByRole("button", { name: "Run check" }));
    const message = await screen.findByText(
      "invalid Collector pipeline config: cannot read the config file",
    );
    expect(message.id).toBe("field-candidate-config_file-error");
    expect(
      screen.getByLabelText("Candidate variant: config file").getAttribute("aria-invalid"),
    ).toBe("true");
    expect(screen.getAllByText(/does not apply to a check of a Collector pipeline/).length).toBe(2);
    const posted = calls.find(submitted);
    expect(posted).toBeDefined();
    expect((posted?.body as { candidate: unknown } | undefined)?.candidate).toEqual({
      name: "my-overlay",
      config_file: "/srv/otel/mine.yaml",
    });
  });
});
