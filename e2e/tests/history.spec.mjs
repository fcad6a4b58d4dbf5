// The History page of a seeded history (e2e/lib/seed_history.py: 12 checks of Go's batch-default,
// CPU per request's overhead 120 points higher from the 7th commit): the chart draws every check,
// the change point is marked at the 7th commit, the service's page links to it, and a point's
// check opens. The seeded checks are deleted, with their experiments, at the end.

import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { shot } from "../lib/env.mjs";
import { expect, flowPage, gotoInApp, test } from "../lib/fixtures.mjs";

test.describe.configure({ mode: "serial" });

// Signed in with the backend's token (reads need it where the token is an operator's own).
const flow = flowPage();

const BACKEND = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "backend");
let seeded;

test.beforeAll(() => {
  // The backend's own environment and settings: the same database the running backend reads.
  const uv = process.env.UV ?? "uv";
  const out = execFileSync(uv, ["run", "--frozen", "python", "../e2e/lib/seed_history.py"], {
    cwd: BACKEND,
    encoding: "utf8",
  });
  seeded = JSON.parse(out.trim().split("\n").at(-1));
  console.log(`    seeded ${seeded.checks.length} checks on ${seeded.branch}`);
});

test.afterAll(async ({ api }) => {
  for (const id of seeded?.checks ?? []) {
    const response = await api.delete(`/api/v1/checks/${id}`);
    expect([204, 404]).toContain(response.status());
  }
});

test("the History page marks the change point at the commit that made it", async ({ api }) => {
  const { page } = flow;
  const params = new URLSearchParams({
    service: "go",
    configuration: "batch-default",
    branch: seeded.branch,
  });
  // What the page must show: the API's own series.
  const series = await (
    await api.get(`/api/v1/history?${params}&metric=cpu_per_request_us`)
  ).json();
  expect(series.points).toHaveLength(12);
  expect(series.change_points.map((c) => c.index)).toEqual([seeded.step_at - 1]);

  await page.goto("/");
  await gotoInApp(page, "History");
  await page.getByRole("heading", { level: 1, name: "History" }).waitFor();
  await page.goto(`/history?${params}`);
  const filters = page.getByRole("form", { name: "Filters" });
  await expect(filters.getByLabel("Branch")).toHaveValue(seeded.branch);

  const chart = page.getByTestId("history-chart-cpu_per_request_us");
  await expect(chart).toHaveAttribute("data-bars", "12");
  const changes = page.getByRole("list", { name: "Change points of the CPU per request overhead" });
  const items = changes.getByRole("listitem");
  await expect(items).toHaveCount(1);
  const seventh = seeded.commits[seeded.step_at - 1].slice(0, 7);
  await expect(items.first()).toHaveAttribute("data-change-index", String(seeded.step_at - 1));
  await expect(items.first()).toContainText(`Change point at ${seventh}`);
  // p50 did not move: no change point there.
  await expect(
    page.getByRole("list", { name: "Change points of the p50 latency overhead" }),
  ).toHaveCount(0);
  await page.screenshot({ path: shot("20-history.png"), fullPage: true });

  // The service's page lists the configuration and links to its history.
  await page.goto(`/services/go?branch=${encodeURIComponent(seeded.branch)}`);
  await page.getByRole("heading", { level: 1, name: "Service go" }).waitFor();
  await expect(page.getByRole("link", { name: "History of batch-default" })).toBeVisible();
  await page.screenshot({ path: shot("21-service.png"), fullPage: true });
});
