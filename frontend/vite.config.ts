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
    environment: "jsdom",
    setupFiles: ["src/test/setup.ts"],
  },
});
