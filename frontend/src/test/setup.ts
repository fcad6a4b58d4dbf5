import { cleanup } from "@testing-library/react";
import { afterEach, vi } from "vitest";

// The test files of a worker share one jsdom (vite.config.ts). Each file still imports the
// app afresh, so that its own mocks (a chart's stand-in, a fake event stream) are what it gets,
// not what an earlier file loaded; and nothing a test leaves in the shared window (a rendered
// tree, a stubbed fetch, a token in storage, an address) reaches the next one.
vi.resetModules();
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  sessionStorage.clear();
  localStorage.clear();
  window.history.replaceState(null, "", "/");
});

// jsdom's scrollTo only reports "not implemented"; the router's scroll restoration calls it.
if (typeof window !== "undefined") window.scrollTo = () => {};

// jsdom has no scrollIntoView; the error summary's links call it.
if (typeof Element !== "undefined" && !Element.prototype.scrollIntoView) {
  Element.prototype.scrollIntoView = () => {};
}
