// Screenshots of every page from data already in the stack; creates no experiment.
// Usage: node screenshots.mjs [experiment-id]   (default: the newest completed experiment on a
// service; the newest completed Collector pipeline experiment is shot too)
// Writes e2e/artifacts/pages/*.png at a laptop size (1366×768) and a wide one (1920×1080).

// Not a test (it checks nothing), so a plain script on Playwright's library API rather than the
// test runner: it takes an experiment id as its argument.

import { mkdir } from "node:fs/promises";
import path from "node:path";
import { chromium } from "@playwright/test";
import { launchOptions } from "./lib/browser.mjs";
import { ARTIFACTS, BASE } from "./lib/env.mjs";
import { authorizationHeader, TOKEN } from "./lib/token.mjs";

const OUT = path.join(ARTIFACTS, "pages");
const readApi = async (route) =>
  (await fetch(`${BASE}${route}`, { headers: authorizationHeader() })).json();

const experiments = await readApi("/api/v1/experiments");
const id =
  process.argv[2] ??
  experiments.find((e) => e.status === "completed" && e.service !== "collector")?.id;
const pipelineId = experiments.find(
  (e) => e.status === "completed" && e.service === "collector",
)?.id;
const checks = await readApi("/api/v1/checks?limit=1");
const checkId = checks[0]?.id;
await mkdir(OUT, { recursive: true });

for (const [label, width, height] of [
  ["laptop", 1366, 768],
  ["wide", 1920, 1080],
]) {
  const browser = await chromium.launch(launchOptions());
  const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1 });
  // Every tab starts with the token, as if opened from `make up`'s login link.
  if (TOKEN) {
    await context.addInitScript((value) => {
      sessionStorage.setItem("tracetax.apiToken", value);
    }, TOKEN);
  }
  const page = await context.newPage();
  // Client-side navigation, so the shots do not depend on the backend's deep-link fallback.
  const open = async (route) => {
    await page.evaluate((to) => {
      window.history.pushState({}, "", to);
      window.dispatchEvent(new PopStateEvent("popstate"));
    }, route);
  };
  try {
    await page.goto(`${BASE}/`);
    await page.locator("table.experiments, .state-empty").first().waitFor();
    await page.screenshot({ path: path.join(OUT, `${label}-experiments.png`), fullPage: true });
    await open("/experiments/new");
    await page.getByLabel("Rate (req/s)").waitFor();
    await page.screenshot({ path: path.join(OUT, `${label}-new-experiment.png`), fullPage: true });
    if (id) {
      await open(`/experiments/${id}`);
      await page
        .locator("table.comparison, .live-run, .state-error, .state-empty")
        .first()
        .waitFor();
      // The diagnostics (intervals, ledger, flame graph) take the backend a few seconds.
      await page
        .locator('[data-testid="flame-graph"], .state-error')
        .first()
        .waitFor({ timeout: 30_000 })
        .catch(() => {});
      await page.waitForTimeout(1000);
      await page.screenshot({ path: path.join(OUT, `${label}-experiment.png`), fullPage: true });
    }
    await open("/pipelines/new");
    await page.getByLabel("Spans per second").waitFor();
    await page.screenshot({ path: path.join(OUT, `${label}-new-pipeline.png`), fullPage: true });
    if (pipelineId) {
      await open(`/experiments/${pipelineId}`);
      await page
        .locator('[data-testid="pipeline-results"], .state-error')
        .first()
        .waitFor({ timeout: 30_000 });
      // The ledger comes with the diagnostics.
      await page
        .locator('section[aria-label$=": Spans"], .state-error')
        .first()
        .waitFor({ timeout: 30_000 })
        .catch(() => {});
      await page.waitForTimeout(1000);
      await page.screenshot({
        path: path.join(OUT, `${label}-pipeline-experiment.png`),
        fullPage: true,
      });
    }
    await open("/checks");
    await page
      .locator("table.checks, .state-empty, .state-error")
      .first()
      .waitFor({ timeout: 60_000 });
    await page.screenshot({ path: path.join(OUT, `${label}-checks.png`), fullPage: true });
    if (checkId) {
      await open(`/checks/${checkId}`);
      await page
        .locator('[data-testid="cli-command"], .state-error')
        .first()
        .waitFor({ timeout: 30_000 });
      await page.screenshot({ path: path.join(OUT, `${label}-check.png`), fullPage: true });
    }
    await open("/stack");
    await page.locator("#health-title ~ * caption, .state-error").first().waitFor();
    await page.screenshot({ path: path.join(OUT, `${label}-stack.png`), fullPage: true });
    await open("/no/such/page");
    await page.getByRole("heading", { name: "Page not found" }).waitFor();
    await page.screenshot({ path: path.join(OUT, `${label}-not-found.png`) });
  } finally {
    await browser.close();
  }
}
console.log(`screenshots of ${id ?? "(no experiment)"} in ${OUT}`);
