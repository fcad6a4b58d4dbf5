// Debian's Chromium, headless, driven by playwright-core (no browser is ever downloaded).

import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

export const CHROMIUM = process.env.TRACETAX_CHROMIUM ?? "/usr/bin/chromium";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * A fresh profile (--user-data-dir) per run; `close()` removes it. With `token`, every page
 * starts with it in its tab's storage, as if opened from `make up`'s login link (run.mjs opens
 * that link itself instead).
 */
export async function launch({ width = 1440, height = 900, token = null } = {}) {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: apt-get install -y chromium (or set TRACETAX_CHROMIUM)`,
    );
  }
  const profile = await mkdtemp(path.join(os.tmpdir(), "tracetax-e2e-profile-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width, height },
    deviceScaleFactor: 1,
  });
  if (token) {
    await context.addInitScript((value) => {
      sessionStorage.setItem("tracetax.apiToken", value);
    }, token);
  }
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      await rm(profile, { recursive: true, force: true });
    },
  };
}
