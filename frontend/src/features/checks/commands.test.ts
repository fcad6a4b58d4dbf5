import { describe, expect, it } from "vitest";
import type { ExperimentSpec } from "../../api/types";
import { checkExperiment, checkStatus, presets } from "../../test/fixtures";
import {
  budgetLimit,
  budgetSummary,
  checkRequest,
  cliCommand,
  curlCommands,
  junitUrl,
  requestNames,
  shellQuote,
} from "./commands";

const spec = (candidate = {}, load = {}) =>
  checkExperiment(candidate, load).spec as unknown as ExperimentSpec;
const BASE = "http://tracetax.internal:8000";

describe("checkRequest", () => {
  it("rebuilds the request from the stored spec: presets plus only the variables changed", () => {
    expect(checkRequest(checkStatus(), spec(), presets)).toEqual({
      service: { kind: "demo", language: "go" },
      baseline: { preset: "none" },
      candidate: { preset: "batch-tuned", env: { OTEL_EXPORTER_OTLP_TIMEOUT: "500" } },
      load: {
        rate: 100,
        warmup_s: 2,
        duration_s: 3,
        connections: 16,
        path: "/work",
        query: { iters: 1000, spans: 5 },
        max_throughput_s: 0,
      },
      budget: { p99_overhead_pct: 15, max_dropped_spans: 0 },
      rounds: 3,
      strict: false,
    });
  });

  it("sends name, processor and every variable when a preset's variable was removed", () => {
    const request = checkRequest(
      checkStatus(),
      spec({ env: { OTEL_BSP_MAX_QUEUE_SIZE: "2" } }),
      presets,
    );
    expect(request.candidate).toEqual({
      name: "batch-tuned",
      processor: "batch",
      env: { OTEL_BSP_MAX_QUEUE_SIZE: "2" },
    });
    const custom = checkRequest(checkStatus(), spec({ preset: null, env: {} }), presets);
    expect(custom.candidate).toEqual({ name: "batch-tuned", processor: "batch" });
  });

  it("recovers the request's names from the check's experiment name", () => {
    expect(requestNames("check: batch-default vs none")).toEqual({
      candidate: "batch-default",
      baseline: "none",
    });
    expect(requestNames("my experiment")).toEqual({ candidate: null, baseline: null });
  });
});

describe("cliCommand", () => {
  it("uses flags when they say the request exactly", () => {
    const cli = cliCommand(BASE, checkStatus({ strict: true }), spec(), presets);
    expect(cli.flags).toBe(true);
    expect(cli.command).toBe(
      [
        "tracetax check --api http://tracetax.internal:8000",
        "  --service go --baseline none --candidate batch-tuned",
        "  --candidate-env OTEL_EXPORTER_OTLP_TIMEOUT=500",
        "  --rate 100 --duration 3 --rounds 3 --iters 1000 --spans 5",
        "  --p99-overhead-pct 15 --max-dropped-spans 0",
        "  --strict --junit tracetax-junit.xml",
      ].join(" \\\n"),
    );
  });

  it("spells a configuration without a preset by its processor", () => {
    const cli = cliCommand(
      BASE,
      checkStatus(),
      spec({ preset: null, env: { OTEL_BSP_MAX_QUEUE_SIZE: "2" } }),
      presets,
    );
    expect(cli.command).toContain(
      "--candidate batch \\\n  --candidate-env OTEL_BSP_MAX_QUEUE_SIZE=2",
    );
  });

  it("reads the request from a file when the flags cannot say it", () => {
    const cli = cliCommand(BASE, checkStatus(), spec({}, { warmup_s: 1, connections: 8 }), presets);
    expect(cli.flags).toBe(false);
    expect(cli.reasons).toEqual([
      "a warm-up of 1 s (the CLI uses 2 s)",
      "8 connections (the CLI uses 16)",
    ]);
    const lines = cli.command.split("\n");
    expect(lines[0]).toBe("cat > tracetax-check.json <<'EOF'");
    expect(lines.at(-1)).toBe(
      "tracetax check --api http://tracetax.internal:8000 --spec tracetax-check.json --junit tracetax-junit.xml",
    );
    const body = JSON.parse(lines.slice(1, -2).join("\n"));
    expect(body.load.warmup_s).toBe(1);
    expect(body.candidate.preset).toBe("batch-tuned");
  });

  it("needs the file for a baseline with its own variables", () => {
    const stored = spec();
    stored.configurations[0] = { ...stored.configurations[0], env: { OTEL_SDK_DISABLED: "true" } };
    expect(cliCommand(BASE, checkStatus(), stored, presets).reasons).toEqual([
      "the baseline's own variables (the CLI has no --baseline-env)",
    ]);
  });
});

describe("curlCommands", () => {
  it("queues the same request, then reads the verdict and the JUnit XML", () => {
    const request = checkRequest(checkStatus(), spec(), presets);
    const curl = curlCommands(`${BASE}/`, request);
    const lines = curl.split("\n");
    expect(lines[0]).toBe(
      "CHECK_ID=$(curl -sf -XPOST http://tracetax.internal:8000/api/v1/checks \\",
    );
    expect(lines[1]).toBe("  -H 'content-type: application/json' \\");
    const body = curl.slice(curl.indexOf("-d '") + 4, curl.indexOf("' | jq -r .id)"));
    expect(JSON.parse(body)).toEqual(request);
    expect(lines.at(-1)).toBe(
      'curl -sf http://tracetax.internal:8000/api/v1/checks/"$CHECK_ID?format=junit" -o tracetax-junit.xml',
    );
  });

  it("quotes for the shell", () => {
    expect(shellQuote("OTEL_X=http://a:9/v1")).toBe("OTEL_X=http://a:9/v1");
    expect(shellQuote("a b")).toBe("'a b'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(junitUrl("a b")).toBe("/api/v1/checks/a%20b?format=junit");
  });
});

describe("budget text", () => {
  it("reads the budget's lines", () => {
    expect(
      budgetSummary({ p99_overhead_pct: 15, cpu_overhead_pct: null, max_dropped_spans: 0 }),
    ).toEqual(["p99 latency overhead ≤ 15 %", "Spans dropped in the SDK ≤ 0 spans"]);
    expect(budgetLimit("cpu_overhead_pct", -2.5)).toBe("≤ \u22122.5 %");
  });

  it("reads the absolute lines in their units, in the backend's order", () => {
    expect(
      budgetSummary({ cpu_added_us: 40, p50_added_ms: 0.5, p50_overhead_pct: 5, p99_added_ms: 2 }),
    ).toEqual([
      "p50 latency overhead ≤ 5.0 %",
      "p50 latency added ≤ 0.5 ms",
      "p99 latency added ≤ 2 ms",
      "CPU per request added ≤ 40 µs",
    ]);
    expect(budgetLimit("isolation", 0)).toBe("no flagged round");
  });
});

describe("the CLI's budget flags", () => {
  it("spells every budget line as its flag", () => {
    const cli = cliCommand(
      BASE,
      checkStatus({
        budget: {
          p50_overhead_pct: 5,
          p99_overhead_pct: 15,
          cpu_overhead_pct: 20,
          p50_added_ms: 0.5,
          p99_added_ms: 2,
          cpu_added_us: 40,
          max_dropped_spans: 0,
        },
      }),
      spec(),
      presets,
    );
    expect(cli.command).toContain(
      "  --p50-overhead-pct 5 --p99-overhead-pct 15 --cpu-overhead-pct 20 --p50-added-ms 0.5 --p99-added-ms 2 --cpu-added-us 40 --max-dropped-spans 0",
    );
  });
});
