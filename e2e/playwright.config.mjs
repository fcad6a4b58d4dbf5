// The browser tests of the UI against a running stack (see README.md): Debian's Chromium, one
// worker (the stack measures one experiment at a time, and the machine has two cores), each file
// one flow whose tests build on each other (test.describe.configure({ mode: "serial" })).

import { defineConfig } from "@playwright/test";
import { launchOptions, VIEWPORT } from "./lib/browser.mjs";
import { ARTIFACTS, BASE } from "./lib/env.mjs";

export default defineConfig({
  testDir: "tests",
  // Playwright's own output (traces and screenshots of failed tests) beside the named shots.
  outputDir: `${ARTIFACTS}/test-results`,
  workers: 1,
  fullyParallel: false,
  retries: 0,
  forbidOnly: Boolean(process.env.CI),
  // A test's own limit (test.setTimeout) where it waits in the backend's queue.
  timeout: 60_000,
  reporter: [["list"]],
  use: {
    baseURL: BASE,
    viewport: VIEWPORT,
    deviceScaleFactor: 1,
    launchOptions: launchOptions(),
    // playwright-core's defaults, which the hand-rolled runner had: a wait gives up after 30 s.
    actionTimeout: 30_000,
    navigationTimeout: 30_000,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  projects: [
    { name: "setup", testMatch: /\.setup\.mjs$/ },
    { name: "e2e", testMatch: /\.spec\.mjs$/, dependencies: ["setup"] },
  ],
});
