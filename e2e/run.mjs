// End-to-end: the UI in Debian's Chromium against the stack `make up` runs (TRACETAX_URL,
// default http://127.0.0.1:8000). Creates one short experiment (Go, none vs batch-default,
// about 32 s of measuring), watches it, and checks the results page with the real data:
// the table with the diagnostics' intervals, the charts, where export runs and the flame graph,
// the span ledger, the recommendation, a sample trace and the logs. Then runs a short CI check
// from the UI (about 18 s) and downloads its JUnit XML, and a tiny Collector pipeline experiment
// (passthrough vs batch-default, about 20 s) from its own form, up to its results view.
// Screenshots go to e2e/artifacts/. Last line: "N passed, M failed".

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { launch } from "./lib/browser.mjs";
import { backendIsUp, run, sleep, test } from "./lib/harness.mjs";
import { loginUrl, sendTokenTo, TOKEN } from "./lib/token.mjs";

const BASE = (process.env.TRACETAX_URL ?? "http://127.0.0.1:8000").replace(/\/+$/, "");
sendTokenTo(BASE);
const ARTIFACTS = path.join(path.dirname(fileURLToPath(import.meta.url)), "artifacts");
const RUNNING_PHASES = [
  "starting",
  "warmup",
  "measuring",
  "max-throughput",
  "stopping",
  "aggregating",
];
// The experiment waits behind any other one in the queue; one measurement runs at a time.
const RESULTS_TIMEOUT_MS = Number(process.env.TRACETAX_E2E_RESULTS_TIMEOUT_MS ?? 6 * 60_000);

const shot = (name) => path.join(ARTIFACTS, name);

let browser;
let page;
const pageErrors = [];
let experimentId;
let diagnostics;
let checkId;
let pipelineId;

/** The UI sent the API token with `request` (when the run has one: see lib/token.mjs). */
async function assertSentToken(request) {
  if (!TOKEN) return;
  const headers = await request.allHeaders();
  assert.equal(headers.authorization, `Bearer ${TOKEN}`, `${request.url()} without the token`);
}

/** The UI's signed percentage (lib/format.ts formatPercent) without its sign. */
function percentText(value) {
  const abs = Math.abs(value);
  const decimals = abs < 10 ? 1 : 0;
  return `${abs.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals })} %`;
}

/** The UI's CPU in cores (lib/format.ts formatCores): millicores below one core. */
function coresText(cores) {
  const significant = (value) => {
    if (value === 0) return "0";
    const decimals = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(value))));
    return value.toLocaleString("en-US", {
      minimumFractionDigits: decimals,
      maximumFractionDigits: decimals,
    });
  };
  if (cores === 0) return "0 cores";
  return Math.abs(cores) >= 1 ? `${significant(cores)} cores` : `${significant(cores * 1000)} millicores`;
}

async function gotoInApp(linkName) {
  await page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link", { name: linkName })
    .click();
}

test("the backend is up", () => backendIsUp(BASE), { timeoutMs: 70_000 });

test(
  "the experiments list renders",
  async () => {
    browser = await launch();
    page = await browser.context.newPage();
    page.on("pageerror", (error) => pageErrors.push(String(error)));
    if (process.env.TRACETAX_E2E_DEBUG) {
      page.on("console", (message) =>
        console.log(`    console.${message.type()}: ${message.text()}`),
      );
      page.on("request", (r) => {
        if (r.url().includes("/api/")) console.log(`    ${r.method()} ${r.url()} …`);
      });
      page.on("requestfailed", (r) =>
        console.log(`    ${r.method()} ${r.url()} failed: ${r.failure()?.errorText}`),
      );
      page.on("response", (r) => {
        if (r.url().includes("/api/"))
          console.log(`    ${r.request().method()} ${r.url()} → ${r.status()}`);
      });
    }
    // The link `make up` prints: the UI keeps the token for the tab and drops it from the address.
    const response = await page.goto(loginUrl(`${BASE}/`));
    assert.equal(response?.status(), 200, "GET / should serve the UI");
    assert.ok(!page.url().includes("token="), `the token stays in the address bar: ${page.url()}`);
    await page.getByRole("heading", { level: 1, name: "Experiments" }).waitFor();
    await page.locator("table.experiments, .state-empty").first().waitFor();
    await page.screenshot({ path: shot("01-experiments.png"), fullPage: true });
  },
  { needs: ["the backend is up"] },
);

test(
  "an API validation error is shown beside its field",
  async () => {
    await gotoInApp("New experiment");
    const rate = page.getByLabel("Rate (req/s)");
    await rate.waitFor();
    await rate.fill("0");
    const answered = page.waitForResponse(
      (r) => r.url().endsWith("/api/v1/experiments") && r.request().method() === "POST",
    );
    await page.getByRole("button", { name: "Start experiment" }).click();
    const response = await answered;
    assert.equal(response.status(), 422, "rate 0 should be refused by the API");
    const fieldError = page.locator("#field-load-rate-error");
    await fieldError.waitFor();
    assert.match(await fieldError.innerText(), /greater than 0/);
    assert.equal(await rate.getAttribute("aria-invalid"), "true");
    const summary = page.locator(".error-summary");
    assert.match(await summary.innerText(), /load\.rate/);
    // The summary's link takes the keyboard to the field.
    await summary.getByRole("link", { name: "load.rate" }).click();
    assert.equal(await page.evaluate(() => document.activeElement?.id), "field-load-rate");
    await page.screenshot({ path: shot("02-validation-error.png"), fullPage: true });
  },
  { needs: ["the experiments list renders"] },
);

test(
  "a short two-configuration experiment is created",
  async () => {
    // A fresh form: leave and come back.
    await gotoInApp("Experiments");
    await gotoInApp("New experiment");
    await page.getByLabel("Rate (req/s)").waitFor();
    await page.locator('input[name="service"][value="go"]').check();
    const names = await page
      .getByLabel("Name", { exact: true })
      .evaluateAll((inputs) => inputs.map((input) => input.value));
    assert.deepEqual(names, ["none", "batch-default"], "the default configurations");
    await page.getByLabel("Name (optional)").fill("e2e: go none vs batch-default");
    await page.getByLabel("Rate (req/s)").fill("100");
    await page.getByLabel("Warm-up (s)").fill("1");
    await page.getByLabel("Duration (s)").fill("3");
    await page.getByLabel("Max throughput (s)").fill("2");
    await page.getByLabel("Rounds", { exact: true }).fill("1");
    // (3 + 1 + 3 + 5 + 2 + 2) s × 2 configurations × 1 round, as ExperimentSpec.estimated_seconds
    // (start, warm-up, measured, stacks phase, closed loop, stop).
    assert.match(await page.locator(".estimate").innerText(), /about 32 s/);
    await page.screenshot({ path: shot("03-new-experiment.png"), fullPage: true });
    const answered = page.waitForResponse(
      (r) => r.url().endsWith("/api/v1/experiments") && r.request().method() === "POST",
    );
    // Submitted from the keyboard: the button is reachable without a mouse.
    await page.getByRole("button", { name: "Start experiment" }).focus();
    await page.keyboard.press("Enter");
    const response = await answered;
    assert.equal(response.status(), 202, await response.text());
    const created = await response.json();
    assert.equal(created.estimated_seconds, 32);
    experimentId = created.id;
    await page.waitForURL(`**/experiments/${experimentId}`);
    console.log(`    experiment ${experimentId} (queue position ${created.queue_position})`);
  },
  { needs: ["an API validation error is shown beside its field"] },
);

test(
  "its progress is shown live",
  async () => {
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
        assert.match(position, /(none|batch-default) · round 1 of 1 · run [12] of 2/);
        assert.ok(Number(overall) >= 0, `overall progress ${overall}`);
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
      await sleep(250);
    }
    console.log(`    phases seen: ${seen.join(" → ")}`);
    assert.ok(
      captured,
      `no warm-up or measuring phase was shown (saw: ${seen.join(", ") || "nothing"})`,
    );
  },
  {
    needs: ["a short two-configuration experiment is created"],
    timeoutMs: RESULTS_TIMEOUT_MS + 30_000,
  },
);

test(
  "the results table shows the measured numbers",
  async () => {
    await page
      .getByRole("heading", { name: "Side by side" })
      .waitFor({ timeout: RESULTS_TIMEOUT_MS });
    const api = await (await fetch(`${BASE}/api/v1/experiments/${experimentId}/results`)).json();
    assert.equal(api.status, "completed", `experiment ended ${api.status}`);
    // The comparison of the "Side by side" section (the cost panel's table shares its look).
    const table = page.getByRole("region", { name: "Side by side" }).locator("table.comparison");
    const headers = await table.locator("thead th").allInnerTexts();
    assert.match(headers[1], /^none/);
    assert.match(headers[2], /^batch-default/);
    for (const [index, configuration] of api.configurations.entries()) {
      const requests = configuration.requests.toLocaleString("en-US");
      assert.match(headers[index + 1], new RegExp(`${requests} requests`), headers[index + 1]);
    }
    const rows = await table.locator("tbody th").allInnerTexts();
    assert.deepEqual(rows, [
      "p50",
      "p90",
      "p99",
      "p99.9",
      "p99.99",
      "max",
      "Max throughput",
      "CPU per request",
      "RSS",
      "Context switches / request",
      "Dropped spans",
    ]);
    // The overhead and its interval come with the diagnostics (computed by the backend).
    await table.locator('td[data-testid="noise-floor"]').first().waitFor({ timeout: 60_000 });
    const answer = await fetch(`${BASE}/api/v1/experiments/${experimentId}/diagnostics`);
    assert.equal(answer.status, 200, await answer.clone().text());
    diagnostics = await answer.json();
    const p99 = await table.locator('tr[data-metric="p99"] td').allInnerTexts();
    assert.match(p99[0], /^\d[\d.,]* (µs|ms|s)$/, `baseline p99: ${p99[0]}`);
    // The value, then the absolute change beside the relative one and the direction, in the
    // API's words (a Change: absolute, relative_pct, direction, note).
    assert.match(p99[1], /\d (µs|ms|s)\n[+−]?[\d.,]+ (µs|ms|s)/, `batch-default p99: ${p99[1]}`);
    const p99Change = diagnostics.overhead["batch-default"].p99;
    if (p99Change.relative_pct.estimate != null) {
      assert.ok(
        p99[1].includes(percentText(p99Change.relative_pct.estimate).replace(" %", "%")),
        `${p99[1]} vs ${p99Change.relative_pct.estimate}`,
      );
    }
    const words = {
      worse: "worse",
      better: "better",
      unchanged: "no significant change",
      unknown: "unknown",
    }[p99Change.direction];
    assert.ok(p99[1].includes(words), `${p99[1]} vs ${p99Change.direction}`);
    // One round: the backend gives no interval and says why; the UI shows that, not a made-up one.
    assert.ok(p99[1].includes(p99Change.note ?? "("), p99[1]);
    const noise = await table
      .locator('tr[data-metric="p50"] td[data-testid="noise-floor"]')
      .innerText();
    assert.ok(noise.length > 0, "noise floor shown");
    const dropped = await table.locator('tr[data-metric="dropped_spans"] td').allInnerTexts();
    const droppedApi = diagnostics.dropped_spans["batch-default"];
    assert.equal(
      dropped[1].split("\n")[0],
      droppedApi == null ? "unknown" : droppedApi.toLocaleString("en-US"),
    );
    const throughput = await table.locator('tr[data-metric="max_throughput"] td').allInnerTexts();
    assert.match(throughput[0], /req\/s/);
    await page.getByRole("heading", { name: "Rounds", exact: true }).waitFor();
    await page.screenshot({ path: shot("05-results.png"), fullPage: true });
  },
  { needs: ["its progress is shown live"], timeoutMs: RESULTS_TIMEOUT_MS + 30_000 },
);

test(
  "the percentile plot is drawn from the data",
  async () => {
    const figure = page.getByTestId("percentile-plot");
    await figure.scrollIntoViewIfNeeded();
    assert.equal(await figure.getAttribute("data-series"), "2");
    assert.ok(Number(await figure.getAttribute("data-points")) > 10, "curve points");
    const canvas = figure.locator("canvas");
    await canvas.waitFor();
    const painted = await canvas.evaluate((element) => {
      const context = element.getContext("2d");
      const { data } = context.getImageData(0, 0, element.width, element.height);
      let colored = 0;
      for (let i = 0; i < data.length; i += 4) {
        const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
        if (a > 0 && Math.max(r, g, b) - Math.min(r, g, b) > 60) colored += 1;
      }
      return colored;
    });
    assert.ok(painted > 200, `coloured pixels of the curves: ${painted}`);
    const legend = await figure.locator(".u-legend").innerText();
    assert.match(legend, /none/);
    assert.match(legend, /batch-default/);
    // Hovering shows each configuration's latency at that percentile.
    const box = await canvas.boundingBox();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5);
    const hovered = await figure.locator(".u-legend").innerText();
    assert.match(hovered, /p\d+(\.\d+)?/, hovered);
    assert.match(hovered, /\d (µs|ms|s)/, hovered);
    await figure.screenshot({ path: shot("06-percentile-plot.png") });
    const cpu = page.getByTestId("cpu-chart");
    assert.ok(Number(await cpu.getAttribute("data-points")) > 0, "CPU samples");
    await cpu.screenshot({ path: shot("07-cpu-chart.png") });
  },
  { needs: ["the results table shows the measured numbers"] },
);

test(
  "where export runs: the stacked bar and the flame graph",
  async () => {
    const section = page.locator("section", {
      has: page.getByRole("heading", { name: "Where export runs", exact: true }),
    });
    await section.scrollIntoViewIfNeeded();
    const runs = diagnostics.where_export_runs;
    const sampled = Object.values(runs).filter((r) => r.location && r.location.samples > 0);
    assert.ok(sampled.length > 0, `no stack samples: ${JSON.stringify(runs)}`);
    // ECharts draws the bars as SVG paths, one bar per configuration with samples.
    const bars = section.getByTestId("export-bars");
    await bars.waitFor({ timeout: 20_000 });
    assert.equal(await bars.getAttribute("data-bars"), String(sampled.length));
    // Bar segments: paths filled with a category's colour.
    const colours = ["#d55e00", "#0072b2", "#cc79a7", "#e69f00", "#8f9baa"];
    const segments = bars.locator(colours.map((c) => `svg path[fill="${c}"]`).join(", "));
    await segments.first().waitFor({ state: "attached" });
    assert.ok((await segments.count()) >= sampled.length, "bar segments drawn");
    const tableRows = await section.locator("table.export-table tbody tr").count();
    assert.equal(tableRows, sampled.length);
    // d3-flame-graph: an SVG with a frame per call-tree node, from the stacks API.
    const flame = section.getByTestId("flame-graph");
    await flame.waitFor({ timeout: 20_000 });
    const configuration = await flame.getAttribute("data-configuration");
    const frames = flame.locator("svg.d3-flame-graph g.frame");
    await frames.first().waitFor({ timeout: 20_000 });
    const count = await frames.count();
    assert.ok(count > 5, `flame graph frames: ${count}`);
    const tree = await (
      await fetch(`${BASE}/api/v1/experiments/${experimentId}/stacks/${configuration}`)
    ).json();
    const rootName = await frames.first().getAttribute("name");
    assert.equal(rootName, tree.root.name);
    // Frames are coloured by kind: more than one fill.
    await page.waitForTimeout(800);
    const fills = new Set(
      await flame
        .locator("svg g.frame rect")
        .evaluateAll((rects) => rects.map((r) => r.getAttribute("fill"))),
    );
    assert.ok(fills.size > 1, `fills: ${[...fills]}`);
    const folded = section.getByRole("link", { name: "Download folded stacks" });
    const href = await folded.getAttribute("href");
    assert.match(href, new RegExp(`/stacks/${configuration}\\?format=folded$`));
    // The download goes through the API client, with the token (a plain link would save a 401
    // body wherever reads need it).
    const [download, request] = await Promise.all([
      page.waitForEvent("download"),
      page.waitForRequest((r) => r.url().endsWith(href)),
      folded.click(),
    ]);
    await assertSentToken(request);
    assert.equal(download.suggestedFilename(), `tracetax-${experimentId.slice(0, 8)}-${configuration}.folded`);
    const foldedFile = shot("folded-stacks.folded");
    await download.saveAs(foldedFile);
    const text = await readFile(foldedFile, "utf8");
    assert.match(text.split("\n")[0], / \d+$/, "folded stacks: frames;… count");
    await section.screenshot({ path: shot("10-where-export-runs.png") });
  },
  { needs: ["the results table shows the measured numbers"] },
);

test(
  "the span ledger, the recommendation, a sample trace and the logs",
  async () => {
    const ledger = page.locator('section.ledger-row[data-configuration="batch-default"]');
    await ledger.scrollIntoViewIfNeeded();
    const apiRound = diagnostics.ledger.find((r) => r.configuration === "batch-default");
    const spans = apiRound.signals.find((s) => s.signal === "spans");
    const expected = spans.stages.find((s) => s.stage === "expected");
    const shown = await ledger.locator('[data-stage="expected"] .flow-value').innerText();
    assert.equal(
      shown,
      expected.value == null ? "unknown" : expected.value.toLocaleString("en-US"),
    );
    for (const stage of spans.stages) {
      const text = await ledger.locator(`[data-stage="${stage.stage}"]`).innerText();
      if (stage.value == null) {
        assert.match(text, /unknown/, `${stage.stage}: ${text}`);
        assert.ok(text.includes(stage.unknown_reason), `${stage.stage}: reason shown`);
      } else {
        assert.ok(text.includes(stage.value.toLocaleString("en-US")), `${stage.stage}: ${text}`);
      }
    }
    await page.getByRole("button", { name: "Collect the ledger again" }).waitFor();
    await ledger.locator("xpath=ancestor::section[contains(@class,'panel')]").screenshot({
      path: shot("11-span-ledger.png"),
    });

    const recommendation = page.getByTestId("recommendation");
    await recommendation.scrollIntoViewIfNeeded();
    assert.ok(
      (await recommendation.innerText()).includes(diagnostics.recommendation.summary),
      "recommendation summary",
    );
    assert.equal(
      await recommendation.locator("ol.rules > li").count(),
      diagnostics.recommendation.rules.length,
    );
    await recommendation.screenshot({ path: shot("12-recommendation.png") });

    const traces = Object.values(diagnostics.sample_traces).flat();
    const traceSection = page.locator("#sample-trace");
    await traceSection.scrollIntoViewIfNeeded();
    if (traces.length > 0) {
      const waterfall = traceSection.getByTestId("waterfall");
      await waterfall.waitFor({ timeout: 20_000 });
      assert.ok(Number(await waterfall.getAttribute("data-spans")) >= 2, "spans in the trace");
      assert.ok((await waterfall.locator(".waterfall-bar").count()) >= 2);
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
    const apiLogs = await (
      await fetch(`${BASE}/api/v1/experiments/${experimentId}/logs?limit=10`)
    ).json();
    if (apiLogs.records?.length > 0) {
      assert.equal(
        await logs.getByTestId("logs").getAttribute("data-records"),
        String(apiLogs.records.length),
      );
    }
    await logs.screenshot({ path: shot("14-logs.png") });
  },
  { needs: ["the results table shows the measured numbers"] },
);

test(
  "the results page opens from its own URL",
  async () => {
    const shared = await browser.context.newPage();
    shared.on("pageerror", (error) => pageErrors.push(String(error)));
    try {
      // With cost inputs in the query string, as a shared link has them.
      const costInputs = "requests_per_s=2500";
      // A new tab has no token yet: it comes with the link, beside the link's own query.
      const response = await shared.goto(
        loginUrl(`${BASE}/experiments/${experimentId}?${costInputs}`),
      );
      assert.equal(
        response?.status(),
        200,
        `GET /experiments/${experimentId} answered ${response?.status()}: the backend must serve index.html for UI routes`,
      );
      await shared.getByRole("heading", { name: "Side by side" }).waitFor({ timeout: 15_000 });
      // The cost panel uses the link's inputs: the recommended cost as the API has it for them.
      assert.equal(await shared.getByLabel("Request rate (req/s)").inputValue(), "2500");
      const answer = await fetch(`${BASE}/api/v1/experiments/${experimentId}/cost?${costInputs}`);
      assert.equal(answer.status, 200, await answer.clone().text());
      const cost = await answer.json();
      const recommended = shared.getByTestId("cost-recommended");
      await recommended.waitFor({ timeout: 30_000 });
      if (cost.recommended) {
        assert.equal((await recommended.innerText()).trim(), cost.recommended.summary);
      }
    } finally {
      await shared.close();
    }
  },
  { needs: ["the results table shows the measured numbers"] },
);

test(
  "the stack page lists the components",
  async () => {
    await gotoInApp("Stack");
    await page
      .locator("#health-title ~ * caption, .state-error")
      .first()
      .waitFor({ timeout: 15_000 });
    await page.screenshot({ path: shot("08-stack.png"), fullPage: true });
  },
  { needs: ["the experiments list renders"] },
);

test(
  "the list shows the new experiment",
  async () => {
    await gotoInApp("Experiments");
    // Earlier runs of this suite left experiments of the same name: find this one by its link.
    const link = page.locator(`table.experiments a[href="/experiments/${experimentId}"]`);
    await link.waitFor();
    assert.equal(await link.innerText(), "e2e: go none vs batch-default");
    const row = link.locator("xpath=ancestor::tr");
    assert.match(await row.innerText(), /completed/);
    await page.getByLabel("Service", { exact: true }).selectOption("go");
    await page.waitForURL(/\?service=go$/);
    await link.waitFor();
    await page.screenshot({ path: shot("09-experiments-filtered.png"), fullPage: true });
  },
  { needs: ["a short two-configuration experiment is created"] },
);

test(
  "a CI check runs from the UI and its JUnit XML downloads",
  async () => {
    await gotoInApp("CI checks");
    await page.getByRole("heading", { level: 1, name: "CI checks" }).waitFor();
    await page.getByRole("link", { name: "New check" }).click();
    await page.getByLabel("Rate (req/s)").waitFor();
    await page.getByLabel("Service", { exact: true }).selectOption("go");
    await page.getByLabel("Baseline", { exact: true }).selectOption("none");
    await page.getByLabel("Candidate", { exact: true }).selectOption("batch-default");
    await page.getByLabel("Rate (req/s)").fill("100");
    await page.getByLabel("Duration (s)").fill("2");
    await page.getByLabel("Rounds", { exact: true }).fill("1");
    await page.getByLabel("Max p99 overhead (%)").fill("1000");
    await page.getByLabel("Max CPU per request overhead (%)").fill("");
    await page.getByLabel("Max dropped spans").fill("0");
    // One round has no interval: judge the estimate.
    await page.getByLabel(/Strict/).check();
    const answered = page.waitForResponse(
      (r) => r.url().endsWith("/api/v1/checks") && r.request().method() === "POST",
    );
    await page.getByRole("button", { name: "Run check" }).click();
    const response = await answered;
    assert.equal(response.status(), 202, await response.text());
    checkId = (await response.json()).id;
    await page.waitForURL(`**/checks/${checkId}`);
    console.log(`    check ${checkId}`);
    const junit = page.getByRole("link", { name: "Download JUnit XML" });
    await junit.waitFor({ timeout: RESULTS_TIMEOUT_MS });
    const status = await (await fetch(`${BASE}/api/v1/checks/${checkId}`)).json();
    assert.ok(status.verdict, "the check has a verdict");
    const rows = page.locator("table.budget-lines tbody tr");
    assert.equal(await rows.count(), status.verdict.lines.length);
    for (const line of status.verdict.lines) {
      const row = page.locator(`table.budget-lines tr[data-line="${line.name}"]`);
      const text = await row.innerText();
      assert.ok(text.includes(line.verdict), `${line.name}: ${text}`);
      assert.ok(text.includes(line.reason), `${line.name}: reason`);
    }
    const cli = await page.getByTestId("cli-command").innerText();
    assert.match(cli, /--service go --baseline none --candidate batch-default/);
    assert.match(cli, /--p99-overhead-pct 1000 --max-dropped-spans 0/);
    assert.match(cli, /--strict --junit tracetax-junit\.xml/);
    assert.match(await page.getByTestId("curl-command").innerText(), /\/api\/v1\/checks/);
    await page.screenshot({ path: shot("15-check.png"), fullPage: true });

    const [download, request] = await Promise.all([
      page.waitForEvent("download"),
      page.waitForRequest((r) => r.url().includes("format=junit")),
      junit.click(),
    ]);
    await assertSentToken(request);
    const file = shot("check-junit.xml");
    await download.saveAs(file);
    const xml = await readFile(file, "utf8");
    // Well-formed XML whose root is a testsuite with a test case per budget line.
    const parsed = await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, "application/xml");
      return {
        error: doc.querySelector("parsererror")?.textContent ?? null,
        root: doc.documentElement.nodeName,
        tests: doc.documentElement.getAttribute("tests"),
        cases: doc.querySelectorAll("testcase").length,
      };
    }, xml);
    assert.equal(parsed.error, null, "valid XML");
    assert.equal(parsed.root, "testsuite");
    assert.equal(Number(parsed.tests), status.verdict.lines.length);
    assert.ok(parsed.cases >= status.verdict.lines.length);
  },
  { needs: ["the experiments list renders"], timeoutMs: RESULTS_TIMEOUT_MS + 60_000 },
);

test(
  "the checks list shows the new check, and an unknown check shows the API's error",
  async () => {
    await gotoInApp("CI checks");
    const link = page.locator(`table.checks a[href="/checks/${checkId}"]`);
    await link.waitFor();
    assert.match(await link.locator("xpath=ancestor::tr").innerText(), /pass|fail|error/);
    await page.screenshot({ path: shot("16-checks.png"), fullPage: true });
    const missing = "00000000-0000-0000-0000-000000000000";
    await page.evaluate((to) => {
      window.history.pushState({}, "", to);
      window.dispatchEvent(new PopStateEvent("popstate"));
    }, `/checks/${missing}`);
    const alert = page.getByRole("alert");
    await alert.waitFor();
    assert.match(await alert.innerText(), new RegExp(`no check ${missing}`));
  },
  { needs: ["a CI check runs from the UI and its JUnit XML downloads"] },
);

test(
  "a tiny pipeline experiment is created from its form",
  async () => {
    await gotoInApp("New pipeline experiment");
    await page.getByRole("heading", { level: 1, name: "New pipeline experiment" }).waitFor();
    // passthrough (the baseline) and batch-default are chosen to start with.
    const passthrough = page.getByRole("checkbox", { name: "passthrough", exact: true });
    await passthrough.waitFor();
    assert.ok(await passthrough.isChecked(), "passthrough is chosen");
    assert.ok(
      await page.getByRole("checkbox", { name: "batch-default", exact: true }).isChecked(),
      "batch-default is chosen",
    );
    assert.ok(
      await page.getByRole("radio", { name: "passthrough is the baseline" }).isChecked(),
      "passthrough is the baseline",
    );
    await page.getByLabel("Name (optional)").fill("e2e: passthrough vs batch-default");
    await page.getByLabel("Spans per second").fill("500");
    await page.getByLabel("Warm-up (s)").fill("1");
    await page.getByLabel("Measured (s)").fill("2");
    await page.getByLabel("Drain (s)").fill("3");
    await page.getByLabel("Rounds", { exact: true }).fill("1");
    // (2 + 1 + 2 + 3 + 2) s × 2 variants × 1 round, as PipelineSpec.estimated_seconds.
    assert.match(await page.locator(".estimate").innerText(), /about 20 s/);
    await page.screenshot({ path: shot("17-new-pipeline.png"), fullPage: true });
    const answered = page.waitForResponse(
      (r) => r.url().endsWith("/api/v1/experiments") && r.request().method() === "POST",
    );
    // From the keyboard, as the service form's (after a full-page screenshot, headless
    // Chromium can drop a click on the sticky footer's button).
    await page.getByRole("button", { name: "Start pipeline experiment" }).focus();
    await page.keyboard.press("Enter");
    const response = await answered;
    assert.equal(response.status(), 202, await response.text());
    const created = await response.json();
    assert.equal(created.estimated_seconds, 20);
    pipelineId = created.id;
    await page.waitForURL(`**/experiments/${pipelineId}`);
    console.log(`    pipeline experiment ${pipelineId} (queue position ${created.queue_position})`);
  },
  { needs: ["the experiments list renders"] },
);

test(
  "the pipeline's run drains and its results show the pipeline view",
  async () => {
    await page.getByRole("heading", { name: "Live progress" }).waitFor();
    const seen = [];
    const deadline = Date.now() + RESULTS_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const phase = await page
        .locator(".progress-view")
        .getAttribute("data-phase", { timeout: 500 })
        .catch(() => null);
      if (phase && seen.at(-1) !== phase) seen.push(phase);
      if (await page.getByTestId("pipeline-results").isVisible()) break;
      await sleep(250);
    }
    console.log(`    phases seen: ${seen.join(" → ")}`);
    assert.ok(seen.includes("draining"), `the drain was shown (saw: ${seen.join(", ")})`);
    const view = page.getByTestId("pipeline-results");
    await view.waitFor({ timeout: 30_000 });
    const api = await (await fetch(`${BASE}/api/v1/experiments/${pipelineId}/results`)).json();
    assert.equal(api.status, "completed", `pipeline experiment ended ${api.status}`);
    // Never the service's view.
    assert.equal(await page.getByTestId("percentile-plot").count(), 0);
    assert.equal(await page.getByRole("heading", { name: "Where export runs" }).count(), 0);
    const table = page.locator("table.pipeline-comparison");
    const headers = await table.locator("thead th").allInnerTexts();
    assert.match(headers[1], /^passthrough/);
    assert.match(headers[2], /^batch-default/);
    const cpu = await table.locator('tr[data-metric="cpu_cores"] td').allInnerTexts();
    for (const [index, configuration] of api.configurations.entries()) {
      assert.ok(
        cpu[index].startsWith(coresText(configuration.cpu_cores)),
        `${configuration.configuration}: ${cpu[index]} vs ${configuration.cpu_cores}`,
      );
    }
    // The change comes with the diagnostics, in their own words.
    await table.locator('td[data-testid="noise-floor"]').first().waitFor({ timeout: 60_000 });
    const diagnosticsAnswer = await fetch(
      `${BASE}/api/v1/experiments/${pipelineId}/diagnostics`,
    );
    assert.equal(diagnosticsAnswer.status, 200, await diagnosticsAnswer.clone().text());
    const pipelineDiagnostics = await diagnosticsAnswer.json();
    assert.equal(pipelineDiagnostics.subject, "collector");
    const change = pipelineDiagnostics.overhead["batch-default"].cpu_cores;
    assert.ok(cpu[1].includes(change.summary), `${cpu[1]} vs ${change.summary}`);
    // The ledger: generated as telemetrygen counted it, per stage into Tempo.
    const ledger = page.getByRole("region", { name: "passthrough, round 1: Spans" });
    await ledger.scrollIntoViewIfNeeded();
    const entry = pipelineDiagnostics.ledger.find((e) => e.configuration === "passthrough");
    const generated = await ledger.locator('[data-stage="generated"] .flow-value').innerText();
    assert.equal(generated, entry.ledger.generated.toLocaleString("en-US"));
    const stored = await ledger.locator('[data-stage="stored"]').innerText();
    assert.match(stored, /Stored in Tempo/);
    await ledger.screenshot({ path: shot("19-pipeline-ledger.png") });
    const memory = page.getByTestId("memory-chart");
    assert.ok(Number(await memory.getAttribute("data-points")) > 0, "memory samples");
    await page.screenshot({ path: shot("18-pipeline-results.png"), fullPage: true });
    // The list shows it as a pipeline.
    await gotoInApp("Experiments");
    const link = page.locator(`table.experiments a[href="/experiments/${pipelineId}"]`);
    await link.waitFor();
    assert.match(await link.locator("xpath=ancestor::tr").innerText(), /Collector pipeline/);
  },
  {
    needs: ["a tiny pipeline experiment is created from its form"],
    timeoutMs: RESULTS_TIMEOUT_MS + 120_000,
  },
);

test(
  "no uncaught errors in the page",
  async () => {
    assert.deepEqual(pageErrors, []);
  },
  { needs: ["the experiments list renders"] },
);

let ok = false;
try {
  ok = await run({ artifacts: ARTIFACTS, page: () => page });
} finally {
  await browser?.close();
}
process.exitCode = ok ? 0 : 1;
