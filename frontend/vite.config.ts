import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

// In development the UI runs on Vite's server and proxies the API to the backend;
// in production the backend serves the built files from dist/.
export default defineConfig({
  plugins: [react()],
  build: {
    // ECharts (the export bar) is a ~520 kB chunk of its own, loaded only by a results page;
    // the app's own chunk stays near 500 kB.
    chunkSizeWarningLimit: 600,
  },
  server: {
    proxy: { "/api": process.env.TRACETAX_API_URL ?? "http://127.0.0.1:8000" },
  },
  test: {
    // Worker threads, and one jsdom per worker instead of a fresh one per test file: 427 tests
    // in about 18 s against 66 s on two cores (building a jsdom was 22 s of it). Each file
    // still imports the app afresh, and nothing a test leaves in the shared window reaches the
    // next: src/test/setup.ts.
    pool: "threads",
    isolate: false,
    environment: "jsdom",
    setupFiles: ["src/test/setup.ts"],
  },
});
