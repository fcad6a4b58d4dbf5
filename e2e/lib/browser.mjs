// Debian's Chromium, headless (Playwright never downloads a browser here): the launch options the
// test runner (playwright.config.mjs) and the screenshot script share.

import { existsSync } from "node:fs";

export const CHROMIUM = process.env.TRACETAX_CHROMIUM ?? "/usr/bin/chromium";

/** Launch options for `chromium.launch` / the config's `use.launchOptions`. */
export function launchOptions() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: apt-get install -y chromium (or set TRACETAX_CHROMIUM)`,
    );
  }
  return {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  };
}

/** The page size the tests run at (a laptop's; the screenshot script picks its own). */
export const VIEWPORT = { width: 1440, height: 900 };
