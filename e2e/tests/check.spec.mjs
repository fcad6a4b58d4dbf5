// A short CI check from the UI (Go, none vs batch-default, about 18 s): its page shows each
// budget line's verdict as the API has it, the CLI and curl commands, and its JUnit XML downloads
// and parses; then the checks list and an unknown check's error. Screenshots go to e2e/artifacts/.

import { readFile } from "node:fs/promises";
import { RESULTS_TIMEOUT_MS, shot } from "../lib/env.mjs";
import { expect, expectSentToken, flowPage, gotoInApp, test } from "../lib/fixtures.mjs";

test.describe.configure({ mode: "serial" });

const flow = flowPage();
let checkId;

test("a CI check runs from the UI and its JUnit XML downloads", async ({ api }) => {
  test.setTimeout(RESULTS_TIMEOUT_MS + 60_000);
  const { page } = flow;
  await page.goto("/");
  await gotoInApp(page, "CI checks");
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
  expect(response.status(), await response.text()).toBe(202);
  checkId = (await response.json()).id;
  await page.waitForURL(`**/checks/${checkId}`);
  console.log(`    check ${checkId}`);
  const junit = page.getByRole("link", { name: "Download JUnit XML" });
  await junit.waitFor({ timeout: RESULTS_TIMEOUT_MS });
  const status = await (await api.get(`/api/v1/checks/${checkId}`)).json();
  expect(status.verdict, "the check has a verdict").toBeTruthy();
  const rows = page.locator("table.budget-lines tbody tr");
  expect(await rows.count()).toBe(status.verdict.lines.length);
  for (const line of status.verdict.lines) {
    const row = page.locator(`table.budget-lines tr[data-line="${line.name}"]`);
    const text = await row.innerText();
    expect(text.includes(line.verdict), `${line.name}: ${text}`).toBe(true);
    expect(text.includes(line.reason), `${line.name}: reason`).toBe(true);
  }
  const cli = await page.getByTestId("cli-command").innerText();
  expect(cli).toMatch(/--service go --baseline none --candidate batch-default/);
  expect(cli).toMatch(/--p99-overhead-pct 1000 --max-dropped-spans 0/);
  expect(cli).toMatch(/--strict --junit tracetax-junit\.xml/);
  expect(await page.getByTestId("curl-command").innerText()).toMatch(/\/api\/v1\/checks/);
  await page.screenshot({ path: shot("15-check.png"), fullPage: true });

  const [download, request] = await Promise.all([
    page.waitForEvent("download"),
    page.waitForRequest((r) => r.url().includes("format=junit")),
    junit.click(),
  ]);
  await expectSentToken(request);
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
  expect(parsed.error, "valid XML").toBeNull();
  expect(parsed.root).toBe("testsuite");
  expect(Number(parsed.tests)).toBe(status.verdict.lines.length);
  expect(parsed.cases >= status.verdict.lines.length).toBe(true);
});

test("the checks list shows the new check, and an unknown check shows the API's error", async () => {
  const { page } = flow;
  await gotoInApp(page, "CI checks");
  const link = page.locator(`table.checks a[href="/checks/${checkId}"]`);
  await link.waitFor();
  expect(await link.locator("xpath=ancestor::tr").innerText()).toMatch(/pass|fail|error/);
  await page.screenshot({ path: shot("16-checks.png"), fullPage: true });
  const missing = "00000000-0000-0000-0000-000000000000";
  await page.evaluate((to) => {
    window.history.pushState({}, "", to);
    window.dispatchEvent(new PopStateEvent("popstate"));
  }, `/checks/${missing}`);
  const alert = page.getByRole("alert");
  await alert.waitFor();
  expect(await alert.innerText()).toMatch(new RegExp(`no check ${missing}`));
});

test("no uncaught errors in the page", async () => {
  expect(flow.errors).toEqual([]);
});
