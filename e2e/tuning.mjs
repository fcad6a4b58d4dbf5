// End-to-end: the Tuning page's bad input, in Debian's Chromium against the running stack
// (TRACETAX_URL, default http://127.0.0.1:8000). Nothing is measured: every submission is one
// the API refuses, and each refusal must show beside the field it names.
//  1. The Go demo with a wall time too small for one candidate: the minimum, beside "Wall time".
//  2. Wall time fixed, 64 cores asked of a machine that gives the service fewer: beside "Cores".
//  3. "Your service" offers the new-experiment form's command fields and, for a Go command,
//     GOMAXPROCS besides Cores.
//
//   cd e2e && node tuning.mjs        # the last line is "N passed, M failed"

import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { launch } from "./lib/browser.mjs";
import { backendIsUp, run, test } from "./lib/harness.mjs";
import { sendTokenTo, TOKEN } from "./lib/token.mjs";

const BASE = (process.env.TRACETAX_URL ?? "http://127.0.0.1:8000").replace(/\/+$/, "");
sendTokenTo(BASE);
const ARTIFACTS = path.join(path.dirname(fileURLToPath(import.meta.url)), "artifacts");

let browser;
let page;
const pageErrors = [];

/** Submits from the keyboard (headless Chromium can drop a click on the sticky footer). */
async function submit() {
  const answered = page.waitForResponse(
    (r) => r.url().endsWith("/api/v1/tunings") && r.request().method() === "POST",
  );
  await page.getByRole("button", { name: "Start tuning" }).focus();
  await page.keyboard.press("Enter");
  return answered;
}

/** The API's message for `loc`, and the text shown beside that field. */
async function refusalBeside(response, loc, fieldId) {
  assert.equal(response.status(), 422, await response.text());
  const body = await response.json();
  const refusal = body.detail.find((d) => d.loc.join(".") === loc);
  assert.ok(refusal, JSON.stringify(body));
  const beside = page.locator(`#${fieldId}-error`);
  await beside.waitFor();
  assert.equal(await beside.innerText(), refusal.msg);
  return refusal.msg;
}

test("the backend is up", () => backendIsUp(BASE), { timeoutMs: 70_000 });

test(
  "a wall time too small is refused beside its field with the minimum",
  async () => {
    browser = await launch({ token: TOKEN });
    page = await browser.context.newPage();
    page.on("pageerror", (error) => pageErrors.push(String(error)));
    await page.goto(`${BASE}/tunings/new`);
    await page.getByLabel("Rate (req/s)").waitFor();
    await page.locator('input[name="service"][value="go"]').check();
    await page.getByLabel("Wall time (s)").fill("10");
    const message = await refusalBeside(await submit(), "body.wall_time_s", "field-wall_time_s");
    assert.match(message, /at least/, message);
  },
  { needs: ["the backend is up"] },
);

test(
  "more cores than the service has are refused beside Cores",
  async () => {
    await page.getByLabel("Wall time (s)").fill("3600");
    await page.getByLabel("Cores", { exact: true }).fill("64");
    const message = await refusalBeside(
      await submit(),
      "body.concurrency.cores",
      "field-concurrency-cores",
    );
    assert.match(message, /64 cores asked/, message);
    await page.screenshot({ path: path.join(ARTIFACTS, "30-tuning-refused.png"), fullPage: true });
  },
  { needs: ["a wall time too small is refused beside its field with the minimum"] },
);

test(
  "your service has the command fields and, in Go, GOMAXPROCS",
  async () => {
    await page.locator('input[name="service"][value="command"]').check();
    const service = page.getByRole("group", { name: "Your service" });
    await service.getByLabel("Argument 0 (the program)").waitFor();
    await service.getByLabel("Language", { exact: true }).selectOption("go");
    await page.getByLabel("GOMAXPROCS").waitFor();
    assert.equal(await page.getByLabel("Threads").count(), 0, "threads are a command's own");
  },
  { needs: ["more cores than the service has are refused beside Cores"] },
);

test(
  "no uncaught errors in the page",
  async () => {
    assert.deepEqual(pageErrors, []);
  },
  { needs: ["a wall time too small is refused beside its field with the minimum"] },
);

let ok = false;
try {
  ok = await run({ artifacts: ARTIFACTS, page: () => page });
} finally {
  await browser?.close();
}
process.exitCode = ok ? 0 : 1;
