// What every spec file shares: `test` with the `api` fixture (the API beside the UI, with the
// token), the flow page of a file's serial tests, and small helpers for the UI's navigation.

import { test as base, expect } from "@playwright/test";
import { VIEWPORT } from "./browser.mjs";
import { BASE, DEBUG, RESULTS_TIMEOUT_MS } from "./env.mjs";
import { authorizationHeader, TOKEN } from "./token.mjs";

export { expect };

export const test = base.extend({
  /**
   * The API with the token, for the tests' own reads (what the UI should show) and for seeding.
   * One per worker: it holds no state between requests.
   */
  api: [
    async ({ playwright }, use) => {
      const api = await playwright.request.newContext({
        baseURL: BASE,
        extraHTTPHeaders: authorizationHeader(),
      });
      await use(api);
      await api.dispose();
    },
    { scope: "worker" },
  ],
});

/** Logs the page's console and API calls (TRACETAX_E2E_DEBUG=1). */
function logTraffic(page) {
  page.on("console", (message) => console.log(`    console.${message.type()}: ${message.text()}`));
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

/** Collects the page's uncaught errors into `errors` (each flow ends by checking there are none). */
export function watchErrors(page, errors) {
  page.on("pageerror", (error) => errors.push(String(error)));
}

/**
 * The one page a file's serial tests share (each builds on the page the one before left), in a
 * fresh browser context, opened before the first test and closed after the last. `signedIn`:
 * every tab starts with the API token in its storage, as if opened from `make up`'s login link;
 * without it the file's first test opens that link itself. `flow.errors` collects the page's
 * uncaught errors.
 */
export function flowPage({ signedIn = true } = {}) {
  const flow = { context: undefined, page: undefined, errors: [] };
  test.beforeAll(async ({ browser }) => {
    flow.context = await browser.newContext({
      baseURL: BASE,
      viewport: VIEWPORT,
      deviceScaleFactor: 1,
    });
    if (signedIn && TOKEN) {
      await flow.context.addInitScript((value) => {
        sessionStorage.setItem("tracetax.apiToken", value);
      }, TOKEN);
    }
    flow.page = await flow.context.newPage();
    watchErrors(flow.page, flow.errors);
    if (DEBUG) logTraffic(flow.page);
  });
  test.afterAll(async () => {
    await flow.context?.close();
  });
  return flow;
}

/** Follows a link of the main navigation. */
export async function gotoInApp(page, linkName) {
  await page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link", { name: linkName })
    .click();
}

/** The UI sent the API token with `request` (when the run has one: see lib/token.mjs). */
export async function expectSentToken(request) {
  if (!TOKEN) return;
  const headers = await request.allHeaders();
  expect(headers.authorization, `${request.url()} without the token`).toBe(`Bearer ${TOKEN}`);
}

/** Submits the form from the keyboard (headless Chromium can drop a click on the sticky footer). */
export async function submitFromKeyboard(page, button, endpoint) {
  const answered = page.waitForResponse(
    (r) => r.url().endsWith(endpoint) && r.request().method() === "POST",
  );
  await page.getByRole("button", { name: button }).focus();
  await page.keyboard.press("Enter");
  return answered;
}

/**
 * Wait for a finished experiment's "Side by side" section, then return its results as the API
 * answers them (asserting it completed) and the comparison table's column heads.
 */
export async function completedComparison(page, api, experimentId) {
  await page
    .getByRole("heading", { name: "Side by side" })
    .waitFor({ timeout: RESULTS_TIMEOUT_MS });
  const results = await (await api.get(`/api/v1/experiments/${experimentId}/results`)).json();
  expect(results.status, `experiment ended ${results.status}`).toBe("completed");
  const table = page.getByRole("region", { name: "Side by side" }).locator("table.comparison");
  const headers = await table.locator("thead th").allInnerTexts();
  return { results, table, headers };
}
