// Before any flow: the backend answers (a stack may still be starting). The spec files depend on
// this project (playwright.config.mjs), so they are skipped when it fails.

import { test as setup } from "@playwright/test";
import { BASE } from "../lib/env.mjs";
import { tokenSource } from "../lib/token.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

setup("the backend is up", async () => {
  setup.setTimeout(70_000);
  console.log(`e2e: ${BASE}, token: ${tokenSource()}`);
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const response = await fetch(`${BASE}/api/health/live`);
      if (response.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline)
      throw new Error(`${BASE}/api/health/live did not answer within 60 s`);
    await sleep(2000);
  }
});
