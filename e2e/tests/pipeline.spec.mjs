// A tiny Collector pipeline experiment (passthrough vs batch-default, about 20 s) from its own
// form, up to its results view: the variants side by side, the diagnostics' change, the span
// ledger into Tempo and the memory chart, never the service's view. Screenshots go to
// e2e/artifacts/.

import { RESULTS_TIMEOUT_MS, shot } from "../lib/env.mjs";
import { expect, flowPage, gotoInApp, submitFromKeyboard, test } from "../lib/fixtures.mjs";

test.describe.configure({ mode: "serial" });

const flow = flowPage();
let pipelineId;

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
  return Math.abs(cores) >= 1
    ? `${significant(cores)} cores`
    : `${significant(cores * 1000)} millicores`;
}

test("a tiny pipeline experiment is created from its form", async () => {
  const { page } = flow;
  await page.goto("/");
  await gotoInApp(page, "New pipeline experiment");
  await page.getByRole("heading", { level: 1, name: "New pipeline experiment" }).waitFor();
  // passthrough (the baseline) and batch-default are chosen to start with.
  const passthrough = page.getByRole("checkbox", { name: "passthrough", exact: true });
  await passthrough.waitFor();
  expect(await passthrough.isChecked(), "passthrough is chosen").toBe(true);
  expect(
    await page.getByRole("checkbox", { name: "batch-default", exact: true }).isChecked(),
    "batch-default is chosen",
  ).toBe(true);
  expect(
    await page.getByRole("radio", { name: "passthrough is the baseline" }).isChecked(),
    "passthrough is the baseline",
  ).toBe(true);
  await page.getByLabel("Name (optional)").fill("e2e: passthrough vs batch-default");
  await page.getByLabel("Spans per second").fill("500");
  await page.getByLabel("Warm-up (s)").fill("1");
  await page.getByLabel("Measured (s)").fill("2");
  await page.getByLabel("Drain (s)").fill("3");
  await page.getByLabel("Rounds", { exact: true }).fill("1");
  // (2 + 1 + 2 + 3 + 2) s × 2 variants × 1 round, plus the side-by-side phase (2 s to start
  // each variant, the warm-up, the window, 2 s to stop: 9 s), as PipelineSpec.estimated_seconds.
  // The estimate is the backend's answer, asked a moment after the last keystroke: wait for it.
  await expect(page.locator(".estimate")).toHaveText(/about 29 s/);
  await page.screenshot({ path: shot("17-new-pipeline.png"), fullPage: true });
  // From the keyboard, as the service form's (after a full-page screenshot, headless
  // Chromium can drop a click on the sticky footer's button).
  const response = await submitFromKeyboard(
    page,
    "Start pipeline experiment",
    "/api/v1/experiments",
  );
  expect(response.status(), await response.text()).toBe(202);
  const created = await response.json();
  expect(created.estimated_seconds).toBe(29);
  pipelineId = created.id;
  await page.waitForURL(`**/experiments/${pipelineId}`);
  console.log(`    pipeline experiment ${pipelineId} (queue position ${created.queue_position})`);
});

test("the pipeline's run drains and its results show the pipeline view", async ({ api }) => {
  test.setTimeout(RESULTS_TIMEOUT_MS + 120_000);
  const { page } = flow;
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
    await page.waitForTimeout(250);
  }
  console.log(`    phases seen: ${seen.join(" → ")}`);
  expect(seen.includes("draining"), `the drain was shown (saw: ${seen.join(", ")})`).toBe(true);
  const view = page.getByTestId("pipeline-results");
  await view.waitFor({ timeout: 30_000 });
  const results = await (await api.get(`/api/v1/experiments/${pipelineId}/results`)).json();
  expect(results.status, `pipeline experiment ended ${results.status}`).toBe("completed");
  // Never the service's view.
  expect(await page.getByTestId("percentile-plot").count()).toBe(0);
  expect(await page.getByRole("heading", { name: "Where export runs" }).count()).toBe(0);
  const table = page.locator("table.pipeline-comparison");
  const headers = await table.locator("thead th").allInnerTexts();
  expect(headers[1]).toMatch(/^passthrough/);
  expect(headers[2]).toMatch(/^batch-default/);
  const cpu = await table.locator('tr[data-metric="cpu_cores"] td').allInnerTexts();
  for (const [index, configuration] of results.configurations.entries()) {
    expect(
      cpu[index].startsWith(coresText(configuration.cpu_cores)),
      `${configuration.configuration}: ${cpu[index]} vs ${configuration.cpu_cores}`,
    ).toBe(true);
  }
  // The change comes with the diagnostics, in their own words.
  await table.locator('td[data-testid="noise-floor"]').first().waitFor({ timeout: 60_000 });
  const diagnosticsAnswer = await api.get(`/api/v1/experiments/${pipelineId}/diagnostics`);
  expect(diagnosticsAnswer.status(), await diagnosticsAnswer.text()).toBe(200);
  const diagnostics = await diagnosticsAnswer.json();
  expect(diagnostics.subject).toBe("collector");
  const change = diagnostics.overhead["batch-default"].cpu_cores;
  expect(cpu[1].includes(change.summary), `${cpu[1]} vs ${change.summary}`).toBe(true);
  // The ledger: generated as telemetrygen counted it, per stage into Tempo.
  const ledger = page.getByRole("region", { name: "passthrough, round 1: Spans" });
  await ledger.scrollIntoViewIfNeeded();
  const entry = diagnostics.ledger.find((e) => e.configuration === "passthrough");
  const generated = await ledger.locator('[data-stage="generated"] .flow-value').innerText();
  expect(generated).toBe(entry.ledger.generated.toLocaleString("en-US"));
  const stored = await ledger.locator('[data-stage="stored"]').innerText();
  expect(stored).toMatch(/Stored in Tempo/);
  await ledger.screenshot({ path: shot("19-pipeline-ledger.png") });
  const memory = page.getByTestId("memory-chart");
  expect(Number(await memory.getAttribute("data-points")) > 0, "memory samples").toBe(true);
  await page.screenshot({ path: shot("18-pipeline-results.png"), fullPage: true });
  // The list shows it as a pipeline.
  await gotoInApp(page, "Experiments");
  const link = page.locator(`table.experiments a[href="/experiments/${pipelineId}"]`);
  await link.waitFor();
  expect(await link.locator("xpath=ancestor::tr").innerText()).toMatch(/Collector pipeline/);
});

test("no uncaught errors in the page", async () => {
  expect(flow.errors).toEqual([]);
});
