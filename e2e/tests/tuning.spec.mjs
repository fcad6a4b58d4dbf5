// The Tuning page's bad input. Nothing is measured: every submission is one the API refuses, and
// each refusal must show beside the field it names.
//  1. The Go demo with a wall time too small for one candidate: the minimum, beside "Wall time".
//  2. Wall time fixed, 64 cores asked of a machine that gives the service fewer: beside "Cores".
//  3. "Your service" offers the new-experiment form's command fields and, for a Go command,
//     GOMAXPROCS besides Cores.

import { shot } from "../lib/env.mjs";
import { expect, flowPage, submitFromKeyboard, test } from "../lib/fixtures.mjs";

test.describe.configure({ mode: "serial" });

const flow = flowPage();

const submit = (page) => submitFromKeyboard(page, "Start tuning", "/api/v1/tunings");

/** The API's message for `loc`, and the text shown beside that field. */
async function refusalBeside(page, response, loc, fieldId) {
  expect(response.status(), await response.text()).toBe(422);
  const body = await response.json();
  const refusal = body.detail.find((d) => d.loc.join(".") === loc);
  expect(refusal, JSON.stringify(body)).toBeTruthy();
  const beside = page.locator(`#${fieldId}-error`);
  await beside.waitFor();
  expect(await beside.innerText()).toBe(refusal.msg);
  return refusal.msg;
}

test("a wall time too small is refused beside its field with the minimum", async () => {
  const { page } = flow;
  await page.goto("/tunings/new");
  await page.getByLabel("Rate (req/s)").waitFor();
  await page.locator('input[name="service"][value="go"]').check();
  await page.getByLabel("Wall time (s)").fill("10");
  const message = await refusalBeside(
    page,
    await submit(page),
    "body.wall_time_s",
    "field-wall_time_s",
  );
  expect(message, message).toMatch(/at least/);
});

test("more cores than the service has are refused beside Cores", async () => {
  const { page } = flow;
  await page.getByLabel("Wall time (s)").fill("3600");
  await page.getByLabel("Cores", { exact: true }).fill("64");
  const message = await refusalBeside(
    page,
    await submit(page),
    "body.concurrency.cores",
    "field-concurrency-cores",
  );
  expect(message, message).toMatch(/64 cores asked/);
  await page.screenshot({ path: shot("30-tuning-refused.png"), fullPage: true });
});

test("your service has the command fields and, in Go, GOMAXPROCS", async () => {
  const { page } = flow;
  await page.locator('input[name="service"][value="command"]').check();
  const service = page.getByRole("group", { name: "Your service" });
  await service.getByLabel("Argument 0 (the program)").waitFor();
  await service.getByLabel("Language", { exact: true }).selectOption("go");
  await page.getByLabel("GOMAXPROCS").waitFor();
  expect(await page.getByLabel("Threads").count(), "threads are a command's own").toBe(0);
});

test("no uncaught errors in the page", async () => {
  expect(flow.errors).toEqual([]);
});
