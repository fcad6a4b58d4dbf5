import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

// In development the UI runs on Vite's server and proxies the API to the backend;
// in production the backend serves the built files from dist/.
export default defineConfig({
  plugins: [react()],
  server: {
    proxy: { "/api": process.env.TRACETAX_API_URL ?? "http://127.0.0.1:8000" },
  },
  test: {
    environment: "jsdom",
    setupFiles: ["src/test/setup.ts"],
  },
});
