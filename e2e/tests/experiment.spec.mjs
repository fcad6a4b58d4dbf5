// One short experiment (Go, none vs batch-default, about 32 s of measuring) from the UI, opened
// through `make up`'s login link: watched live, then its results page checked against the API
// with the real data: the table with the diagnostics' intervals, the charts, where export runs
// and the flame graph, the span ledger, the recommendation, a sample trace and the logs, the page
// from its own URL with cost inputs. Screenshots go to e2e/artifacts/.

import { readFile } from "node:fs/promises";
import {
  completedComparison,
  expect,
  expectSentToken,
  flowPage,
  gotoInApp,
  submitFromKeyboard,
  test,
} from "../lib/fixtures.mjs";
import { RESULTS_TIMEOUT_MS, shot } from "../lib/env.mjs";
import { loginUrl } from "../lib/token.mjs";

test.describe.configure({ mode: "serial" });

const RUNNING_PHASES = [
  "starting",
  "warmup",
  "side-by-side",
  "measuring",
  "max-throughput",
  "stopping",
  "aggregating",
];

// This flow opens the UI through the login link itself.
const flow = flowPage({ signedIn: false });
let experimentId;
let diagnostics;

/** The UI's signed percentage (lib/format.ts formatPercent) without its sign. */
function percentText(value) {
  const abs = Math.abs(value);
  const decimals = abs < 10 ? 1 : 0;
  return `${abs.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals })} %`;
}

test("the experiments list renders", async ({ baseURL }) => {
  const { page } = flow;
  // The link `make up` prints: the UI keeps the token for the tab and drops it from the address.
  const response = await page.goto(loginUrl(`${baseURL}/`));
  expect(response?.status(), "GET / should serve the UI").toBe(200);
  expect(page.url().includes("token="), `the token stays in the address bar: ${page.url()}`).toBe(
    false,
  );
  await page.getByRole("heading", { level: 1, name: "Experiments" }).waitFor();
  await page.locator("table.experiments, .state-empty").first().waitFor();
  await page.screenshot({ path: shot("01-experiments.png"), fullPage: true });
});

test("the stack page lists the components", async () => {
  const { page } = flow;
  await gotoInApp(page, "Stack");
  await page
    .locator("#health-title ~ * caption, .state-error")
    .first()
    .waitFor({ timeout: 15_000 });
  await page.screenshot({ path: shot("08-stack.png"), fullPage: true });
});

test("an API validation error is shown beside its field", async () => {
  const { page } = flow;
  await gotoInApp(page, "New experiment");
  const rate = page.getByLabel("Rate (req/s)");
  await rate.waitFor();
  await rate.fill("0");
  const answered = page.waitForResponse(
    (r) => r.url().endsWith("/api/v1/experiments") && r.request().method() === "POST",
  );
  await page.getByRole("button", { name: "Start experiment" }).click();
  const response = await answered;
  expect(response.status(), "rate 0 should be refused by the API").toBe(422);
  const fieldError = page.locator("#field-load-rate-error");
  await fieldError.waitFor();
  expect(await fieldError.innerText()).toMatch(/greater than 0/);
  expect(await rate.getAttribute("aria-invalid")).toBe("true");
  const summary = page.locator(".error-summary");
  expect(await summary.innerText()).toMatch(/load\.rate/);
  // The summary's link takes the keyboard to the field.
  await summary.getByRole("link", { name: "load.rate" }).click();
  expect(await page.evaluate(() => document.activeElement?.id)).toBe("field-load-rate");
  await page.screenshot({ path: shot("02-validation-error.png"), fullPage: true });
});

test("a short two-configuration experiment is created", async () => {
  const { page } = flow;
  // A fresh form: leave and come back.
  await gotoInApp(page, "Experiments");
  await gotoInApp(page, "New experiment");
  await page.getByLabel("Rate (req/s)").waitFor();
  await page.locator('input[name="service"][value="go"]').check();
  const names = await page
    .getByLabel("Name", { exact: true })
    .evaluateAll((inputs) => inputs.map((input) => input.value));
  expect(names, "the default configurations").toEqual(["none", "batch-default"]);
  await page.getByLabel("Name (optional)").fill("e2e: go none vs batch-default");
  await page.getByLabel("Rate (req/s)").fill("100");
  await page.getByLabel("Warm-up (s)").fill("1");
  await page.getByLabel("Duration (s)").fill("3");
  await page.getByLabel("Max throughput (s)").fill("2");
  await page.getByLabel("Rounds", { exact: true }).fill("1");
  // ((3 + 1 + 3 + 5 + 2 + 2) s × 2 configurations + (3 + 1 + 3 + 2 + 2.5) s side by side) × 1
  // round, as ExperimentSpec.estimated_seconds (start, warm-up, measured, stacks phase, closed
  // loop, stop; then the side-by-side phase: start, its warm-up, as long as measured, stop, settle).
  // The estimate is the backend's answer, asked a moment after the last keystroke: wait for it.
  await expect(page.locator(".estimate")).toHaveText(/about 44 s/);
  await page.screenshot({ path: shot("03-new-experiment.png"), fullPage: true });
  // Submitted from the keyboard: the button is reachable without a mouse.
  const response = await submitFromKeyboard(page, "Start experiment", "/api/v1/experiments");
  expect(response.status(), await response.text()).toBe(202);
  const created = await response.json();
  expect(created.estimated_seconds).toBe(43.5);
  experimentId = created.id;
  await page.waitForURL(`**/experiments/${experimentId}`);
  console.log(`    experiment ${experimentId} (queue position ${created.queue_position})`);
});

test("its progress is shown live", async () => {
  test.setTimeout(RESULTS_TIMEOUT_MS + 30_000);
  const { page } = flow;
  await page.getByRole("heading", { name: "Live progress" }).waitFor();
  const seen = [];
  let captured = false;
  let capturedLater = false;
  const deadline = Date.now() + RESULTS_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const phase = await page
      .locator(".progress-view")
      .getAttribute("data-phase", { timeout: 500 })
      .catch(() => null);
    if (phase && seen.at(-1) !== phase) seen.push(phase);
    if (!captured && (phase === "warmup" || phase === "measuring")) {
      const overall = await page
        .getByRole("progressbar", { name: "Overall" })
        .getAttribute("aria-valuenow");
      const position = await page.locator(".progress-view .phase").innerText();
      // The side-by-side phase (and its warm-up) runs every configuration at once.
      expect(position).toMatch(
        /(none|batch-default) · round 1 of 1 · run [12] of 2|all configurations side by side · round 1 of 1/,
      );
      expect(Number(overall) >= 0, `overall progress ${overall}`).toBe(true);
      await page.screenshot({ path: shot("04-live-run.png"), fullPage: true });
      captured = true;
    }
    // A later shot, once the warm-up has reported its live rate and p99.
    if (captured && !capturedLater && phase === "measuring") {
      await page.screenshot({ path: shot("04-live-run-measuring.png"), fullPage: true });
      capturedLater = true;
    }
    if (captured && seen.filter((p) => RUNNING_PHASES.includes(p)).length >= 3) break;
    if (await page.getByRole("heading", { name: "Side by side" }).isVisible()) break;
    await page.waitForTimeout(250);
  }
  console.log(`    phases seen: ${seen.join(" → ")}`);
  expect(
    captured,
    `no warm-up or measuring phase was shown (saw: ${seen.join(", ") || "nothing"})`,
  ).toBe(true);
});

test("the results table shows the measured numbers", async ({ api }) => {
  test.setTimeout(RESULTS_TIMEOUT_MS + 30_000);
  const { page } = flow;
  // The comparison of the "Side by side" section (the cost panel's table shares its look).
  const { results, table, headers } = await completedComparison(page, api, experimentId);
  expect(headers[1]).toMatch(/^none/);
  expect(headers[2]).toMatch(/^batch-default/);
  for (const [index, configuration] of results.configurations.entries()) {
    const requests = configuration.requests.toLocaleString("en-US");
    expect(headers[index + 1], headers[index + 1]).toMatch(new RegExp(`${requests} requests`));
  }
  const rows = await table.locator("tbody th").allInnerTexts();
  // With the side-by-side phase (on by default for two configurations of a demo), the paired
  // metrics have a row of their own after RSS, which carries their change and noise floor.
  const sideBySide = results.configurations.some((c) => c.side_by_side);
  expect(rows).toEqual([
    "p50",
    "p90",
    "p99",
    "p99.9",
    "p99.99",
    "max",
    "Max throughput",
    "CPU per request",
    "RSS",
    ...(sideBySide ? ["p50 side by side", "CPU per request side by side", "RSS side by side"] : []),
    "Context switches / request",
    "Dropped spans",
  ]);
  // The overhead and its interval come with the diagnostics (computed by the backend).
  await table.locator('td[data-testid="noise-floor"]').first().waitFor({ timeout: 60_000 });
  const answer = await api.get(`/api/v1/experiments/${experimentId}/diagnostics`);
  expect(answer.status(), await answer.text()).toBe(200);
  diagnostics = await answer.json();
  const p99 = await table.locator('tr[data-metric="p99"] td').allInnerTexts();
  expect(p99[0], `baseline p99: ${p99[0]}`).toMatch(/^\d[\d.,]* (µs|ms|s)$/);
  // The value, then the absolute change beside the relative one and the direction, in the
  // API's words (a Change: absolute, relative_pct, direction, note).
  expect(p99[1], `batch-default p99: ${p99[1]}`).toMatch(/\d (µs|ms|s)\n[+−]?[\d.,]+ (µs|ms|s)/);
  const p99Change = diagnostics.overhead["batch-default"].p99;
  if (p99Change.relative_pct.estimate != null) {
    expect(
      p99[1].includes(percentText(p99Change.relative_pct.estimate).replace(" %", "%")),
      `${p99[1]} vs ${p99Change.relative_pct.estimate}`,
    ).toBe(true);
  }
  const words = {
    worse: "worse",
    better: "better",
    unchanged: "no significant change",
    unknown: "unknown",
  }[p99Change.direction];
  expect(p99[1].includes(words), `${p99[1]} vs ${p99Change.direction}`).toBe(true);
  // One round: the backend gives no interval and says why; the UI shows that, not a made-up one.
  expect(p99[1].includes(p99Change.note ?? "("), p99[1]).toBe(true);
  const noise = await table
    .locator('tr[data-metric="p99"] td[data-testid="noise-floor"]')
    .innerText();
  expect(noise.length > 0, "noise floor shown").toBe(true);
  const dropped = await table.locator('tr[data-metric="dropped_spans"] td').allInnerTexts();
  const droppedApi = diagnostics.dropped_spans["batch-default"];
  expect(dropped[1].split("\n")[0]).toBe(
    droppedApi == null ? "unknown" : droppedApi.toLocaleString("en-US"),
  );
  const throughput = await table.locator('tr[data-metric="max_throughput"] td').allInnerTexts();
  expect(throughput[0]).toMatch(/req\/s/);
  await page.getByRole("heading", { name: "Rounds", exact: true }).waitFor();
  await page.screenshot({ path: shot("05-results.png"), fullPage: true });
});

test("the percentile plot is drawn from the data", async () => {
  const { page } = flow;
  const figure = page.getByTestId("percentile-plot");
  await figure.scrollIntoViewIfNeeded();
  expect(await figure.getAttribute("data-series")).toBe("2");
  expect(Number(await figure.getAttribute("data-points")) > 10, "curve points").toBe(true);
  // ECharts draws SVG: each configuration's curve is a 2 px unfilled path through its points,
  // in its own colour (the grid and the axes are 1 px).
  const svg = figure.locator("svg").first();
  await svg.waitFor();
  const colours = await svg.locator('path[fill="none"][stroke-width="2"]').evaluateAll(
    (paths) =>
      new Set(
        paths
          .filter((path) => (path.getAttribute("d") ?? "").split("L").length > 3)
          .map((path) => path.getAttribute("stroke")),
      ).size,
  );
  expect(colours, "curves drawn, one colour per configuration").toBe(2);
  const legend = await svg.textContent();
  expect(legend).toMatch(/none/);
  expect(legend).toMatch(/batch-default/);
  // Hovering shows each configuration's latency at that percentile.
  const box = await svg.boundingBox();
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5);
  const hover = figure.locator(".chart-tooltip");
  await expect(hover).toBeVisible();
  const hovered = await hover.innerText();
  expect(hovered, hovered).toMatch(/p\d+(\.\d+)?/);
  expect(hovered, hovered).toMatch(/\d (µs|ms|s)/);
  await figure.screenshot({ path: shot("06-percentile-plot.png") });
  const cpu = page.getByTestId("cpu-chart");
  expect(Number(await cpu.getAttribute("data-points")) > 0, "CPU samples").toBe(true);
  await cpu.screenshot({ path: shot("07-cpu-chart.png") });
});

test("where export runs: the stacked bar and the flame graph", async ({ api }) => {
  const { page } = flow;
  const section = page.locator("section", {
    has: page.getByRole("heading", { name: "Where export runs", exact: true }),
  });
  await section.scrollIntoViewIfNeeded();
  const runs = diagnostics.where_export_runs;
  const sampled = Object.values(runs).filter((r) => r.location && r.location.samples > 0);
  expect(sampled.length > 0, `no stack samples: ${JSON.stringify(runs)}`).toBe(true);
  // ECharts draws the bars as SVG paths, one bar per configuration with samples.
  const bars = section.getByTestId("export-bars");
  await bars.waitFor({ timeout: 20_000 });
  expect(await bars.getAttribute("data-bars")).toBe(String(sampled.length));
  // Bar segments: paths filled with a category's colour.
  const colours = ["#d55e00", "#0072b2", "#cc79a7", "#e69f00", "#8f9baa"];
  const segments = bars.locator(colours.map((c) => `svg path[fill="${c}"]`).join(", "));
  await segments.first().waitFor({ state: "attached" });
  expect((await segments.count()) >= sampled.length, "bar segments drawn").toBe(true);
  const tableRows = await section.locator("table.export-table tbody tr").count();
  expect(tableRows).toBe(sampled.length);
  // d3-flame-graph: an SVG with a frame per call-tree node, from the stacks API.
  const flame = section.getByTestId("flame-graph");
  await flame.waitFor({ timeout: 20_000 });
  const configuration = await flame.getAttribute("data-configuration");
  const frames = flame.locator("svg.d3-flame-graph g.frame");
  await frames.first().waitFor({ timeout: 20_000 });
  const count = await frames.count();
  expect(count > 5, `flame graph frames: ${count}`).toBe(true);
  const tree = await (
    await api.get(`/api/v1/experiments/${experimentId}/stacks/${configuration}`)
  ).json();
  const rootName = await frames.first().getAttribute("name");
  expect(rootName).toBe(tree.root.name);
  // Frames are coloured by kind: more than one fill.
  await page.waitForTimeout(800);
  const fills = new Set(
    await flame
      .locator("svg g.frame rect")
      .evaluateAll((rects) => rects.map((r) => r.getAttribute("fill"))),
  );
  expect(fills.size > 1, `fills: ${[...fills]}`).toBe(true);
  const folded = section.getByRole("link", { name: "Download folded stacks" });
  const href = await folded.getAttribute("href");
  expect(href).toMatch(new RegExp(`/stacks/${configuration}\\?format=folded$`));
  // The download goes through the API client, with the token (a plain link would save a 401
  // body wherever reads need it).
  const [download, request] = await Promise.all([
    page.waitForEvent("download"),
    page.waitForRequest((r) => r.url().endsWith(href)),
    folded.click(),
  ]);
  await expectSentToken(request);
  expect(download.suggestedFilename()).toBe(
    `tracetax-${experimentId.slice(0, 8)}-${configuration}.folded`,
  );
  const foldedFile = shot("folded-stacks.folded");
  await download.saveAs(foldedFile);
  const text = await readFile(foldedFile, "utf8");
  expect(text.split("\n")[0], "folded stacks: frames;… count").toMatch(/ \d+$/);
  await section.screenshot({ path: shot("10-where-export-runs.png") });
});

test("the span ledger, the recommendation, a sample trace and the logs", async ({ api }) => {
  const { page } = flow;
  const ledger = page.locator('section.ledger-row[data-configuration="batch-default"]');
  await ledger.scrollIntoViewIfNeeded();
  const apiRound = diagnostics.ledger.find((r) => r.configuration === "batch-default");
  const spans = apiRound.signals.find((s) => s.signal === "spans");
  const expected = spans.stages.find((s) => s.stage === "expected");
  const shown = await ledger.locator('[data-stage="expected"] .flow-value').innerText();
  expect(shown).toBe(expected.value == null ? "unknown" : expected.value.toLocaleString("en-US"));
  for (const stage of spans.stages) {
    const text = await ledger.locator(`[data-stage="${stage.stage}"]`).innerText();
    if (stage.value == null) {
      expect(text, `${stage.stage}: ${text}`).toMatch(/unknown/);
      expect(text.includes(stage.unknown_reason), `${stage.stage}: reason shown`).toBe(true);
    } else {
      expect(text.includes(stage.value.toLocaleString("en-US")), `${stage.stage}: ${text}`).toBe(
        true,
      );
    }
  }
  await page.getByRole("button", { name: "Collect the ledger again" }).waitFor();
  await ledger.locator("xpath=ancestor::section[contains(@class,'panel')]").screenshot({
    path: shot("11-span-ledger.png"),
  });

  const recommendation = page.getByTestId("recommendation");
  await recommendation.scrollIntoViewIfNeeded();
  expect(
    (await recommendation.innerText()).includes(diagnostics.recommendation.summary),
    "recommendation summary",
  ).toBe(true);
  expect(await recommendation.locator("ol.rules > li").count()).toBe(
    diagnostics.recommendation.rules.length,
  );
  await recommendation.screenshot({ path: shot("12-recommendation.png") });

  const traces = Object.values(diagnostics.sample_traces).flat();
  const traceSection = page.locator("#sample-trace");
  await traceSection.scrollIntoViewIfNeeded();
  if (traces.length > 0) {
    const waterfall = traceSection.getByTestId("waterfall");
    await waterfall.waitFor({ timeout: 20_000 });
    expect(Number(await waterfall.getAttribute("data-spans")) >= 2, "spans in the trace").toBe(
      true,
    );
    expect((await waterfall.locator(".waterfall-bar").count()) >= 2).toBe(true);
  } else {
    await traceSection.getByText(/No sample traces/).waitFor();
  }
  await traceSection.screenshot({ path: shot("13-sample-trace.png") });
  const logs = page.locator("#logs");
  await logs.scrollIntoViewIfNeeded();
  await logs
    .locator('[data-testid="logs"], .state-empty, .state-error')
    .first()
    .waitFor({ timeout: 20_000 });
  const apiLogs = await (await api.get(`/api/v1/experiments/${experimentId}/logs?limit=10`)).json();
  if (apiLogs.records?.length > 0) {
    expect(await logs.getByTestId("logs").getAttribute("data-records")).toBe(
      String(apiLogs.records.length),
    );
  }
  await logs.screenshot({ path: shot("14-logs.png") });
});

test("the results page opens from its own URL", async ({ api, baseURL }) => {
  const shared = await flow.context.newPage();
  shared.on("pageerror", (error) => flow.errors.push(String(error)));
  try {
    // With cost inputs in the query string, as a shared link has them.
    const costInputs = "requests_per_s=2500";
    // A new tab has no token yet: it comes with the link, beside the link's own query.
    const response = await shared.goto(
      loginUrl(`${baseURL}/experiments/${experimentId}?${costInputs}`),
    );
    expect(
      response?.status(),
      `GET /experiments/${experimentId} answered ${response?.status()}: the backend must serve index.html for UI routes`,
    ).toBe(200);
    await shared.getByRole("heading", { name: "Side by side" }).waitFor({ timeout: 15_000 });
    // The cost panel uses the link's inputs: the recommended cost as the API has it for them.
    expect(await shared.getByLabel("Request rate (req/s)").inputValue()).toBe("2500");
    const answer = await api.get(`/api/v1/experiments/${experimentId}/cost?${costInputs}`);
    expect(answer.status(), await answer.text()).toBe(200);
    const cost = await answer.json();
    const recommended = shared.getByTestId("cost-recommended");
    await recommended.waitFor({ timeout: 30_000 });
    if (cost.recommended) {
      expect((await recommended.innerText()).trim()).toBe(cost.recommended.summary);
    }
  } finally {
    await shared.close();
  }
});

test("the list shows the new experiment", async () => {
  const { page } = flow;
  await gotoInApp(page, "Experiments");
  // Earlier runs of this suite left experiments of the same name: find this one by its link.
  const link = page.locator(`table.experiments a[href="/experiments/${experimentId}"]`);
  await link.waitFor();
  expect(await link.innerText()).toBe("e2e: go none vs batch-default");
  const row = link.locator("xpath=ancestor::tr");
  expect(await row.innerText()).toMatch(/completed/);
  await page.getByLabel("Service", { exact: true }).selectOption("go");
  await page.waitForURL(/\?service=go$/);
  await link.waitFor();
  await page.screenshot({ path: shot("09-experiments-filtered.png"), fullPage: true });
});

test("no uncaught errors in the page", async () => {
  expect(flow.errors).toEqual([]);
});
