// A small sequential test harness: each test may need earlier ones (the flow builds on itself);
// a failed test gets a screenshot, and the last line is the summary "N passed, M failed".

import { mkdir } from "node:fs/promises";
import path from "node:path";

const tests = [];

/** Registers a test; `needs` names earlier tests that must have passed. */
export function test(name, fn, { needs = [], timeoutMs = 60_000 } = {}) {
  tests.push({ name, fn, needs, timeoutMs });
}

function slug(text) {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

function withTimeout(promise, ms, name) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms / 1000} s: ${name}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The tests to run: all, or with `only` (a pattern) those whose name matches it and every test
 * they need, in order.
 */
function selected(only) {
  if (!only) return tests;
  const pattern = new RegExp(only, "i");
  const wanted = new Set(tests.filter((t) => pattern.test(t.name)).map((t) => t.name));
  for (const t of [...tests].reverse()) {
    if (wanted.has(t.name)) for (const need of t.needs) wanted.add(need);
  }
  return tests.filter((t) => wanted.has(t.name));
}

/**
 * Runs every test in order (only those matching `TRACETAX_E2E_ONLY` and what they need, when it
 * is set); `page()` gives the page to screenshot when one fails.
 */
export async function run({ artifacts, page }) {
  await mkdir(artifacts, { recursive: true });
  const outcome = new Map();
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const { name, fn, needs, timeoutMs } of selected(process.env.TRACETAX_E2E_ONLY)) {
    const missing = needs.filter((need) => outcome.get(need) !== "passed");
    if (missing.length > 0) {
      skipped += 1;
      outcome.set(name, "skipped");
      console.log(`- skipped: ${name} (needs: ${missing.join(", ")})`);
      continue;
    }
    const started = Date.now();
    try {
      await withTimeout(Promise.resolve().then(fn), timeoutMs, name);
      passed += 1;
      outcome.set(name, "passed");
      console.log(`✔ ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    } catch (error) {
      failed += 1;
      outcome.set(name, "failed");
      console.log(`✘ ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      console.log(
        `    ${String(error?.stack ?? error)
          .split("\n")
          .slice(0, 6)
          .join("\n    ")}`,
      );
      const current = page();
      if (current && !current.isClosed()) {
        const file = path.join(artifacts, `failed-${slug(name)}.png`);
        await current.screenshot({ path: file, fullPage: true }).catch(() => {});
        console.log(`    screenshot: ${file}`);
      }
    }
  }
  console.log("");
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
  return failed === 0 && skipped === 0;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Waits up to 60 s for the backend's liveness answer (a stack may still be starting).
export async function backendIsUp(base) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const response = await fetch(`${base}/api/health/live`);
      if (response.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${base}/api/health/live did not answer within 60 s`);
    await sleep(2000);
  }
}
