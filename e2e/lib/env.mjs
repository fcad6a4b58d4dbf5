// What the tests run against and where they write, from the environment.

import path from "node:path";
import { fileURLToPath } from "node:url";

/** The TraceTax under test: TRACETAX_URL, default the one `make up` serves. */
export const BASE = (process.env.TRACETAX_URL ?? "http://127.0.0.1:8000").replace(/\/+$/, "");

/** An experiment waits behind any other one in the queue; one measurement runs at a time. */
export const RESULTS_TIMEOUT_MS = Number(process.env.TRACETAX_E2E_RESULTS_TIMEOUT_MS ?? 6 * 60_000);

/** e2e/artifacts/ (gitignored): the named screenshots, downloads and Playwright's output. */
export const ARTIFACTS = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "artifacts");

/** The path of a named artifact. */
export const shot = (name) => path.join(ARTIFACTS, name);

export const DEBUG = Boolean(process.env.TRACETAX_E2E_DEBUG);
