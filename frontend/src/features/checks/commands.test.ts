import { describe, expect, it } from "vitest";
import type { ExperimentSpec, PipelineSpec } from "../../api/types";
import { COST_DEFAULTS } from "../../components/results/costInputs";
import { checkExperiment, checkStatus, presets } from "../../test/fixtures";
import { pipelineCheckExperiment, pipelineCheckStatus } from "../../test/pipelineFixtures";
import {
  budgetLabel,
  budgetLimit,
  budgetMeasure,
  budgetSummary,
  checkRequest,
  cliCommand,
  cliVariantName,
  curlCommands,
  junitUrl,
  pipelineCheckRequest,
  pipelineCliCommand,
  pipelineCliProblems,
  requestNames,
  shellQuote,
} from "./commands";

const spec = (candidate = {}, load = {}) =>
  checkExperiment(candidate, load).spec as unknown as ExperimentSpec;
const BASE = "http://tracetax.internal:8000";

describe("checkRequest", () => {
  it("rebuilds the request from the stored spec: presets plus only the variables changed", () => {
    expect(checkRequest(checkStatus(), spec(), presets)).toEqual({
      subject: "service",
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

  it("buys rounds with --max-wall-time when the check was run with one", () => {
    // A check's max_wall_time_s is stored as a precision without a half-width.
    const buying = {
      ...spec(),
      precision: { metrics: ["p99"], max_wall_time_s: 900 },
    } as ExperimentSpec;
    const cli = cliCommand(BASE, checkStatus(), buying, presets);
    expect(cli.flags).toBe(true);
    expect(cli.command.split(" \\\n").at(-1)).toBe(
      "  --max-wall-time 900 --junit tracetax-junit.xml",
    );
    expect(checkRequest(checkStatus(), buying, presets).max_wall_time_s).toBe(900);
    expect(checkRequest(checkStatus(), spec(), presets)).not.toHaveProperty("max_wall_time_s");
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

  it("reads the cost lines as the candidate's own bytes and dollars", () => {
    expect(budgetSummary({ max_bytes_per_request: 2500, max_usd_per_month: 40 })).toEqual([
      "OTLP bytes per request ≤ 2,500 B",
      "Cost per month ≤ $40.00",
    ]);
    expect(budgetMeasure("max_bytes_per_request", 1998.4)).toBe("1,998 B");
    expect(budgetMeasure("max_usd_per_month", 12.5)).toBe("$12.50");
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

  it("prices $/month at --cost-rate, and takes other cost inputs from a file", () => {
    const costBudget = { max_usd_per_month: 40, cost: { ...COST_DEFAULTS, requests_per_s: 1000 } };
    const cli = cliCommand(BASE, checkStatus({ budget: costBudget }), spec(), presets);
    expect(cli.flags).toBe(true);
    expect(cli.command).toContain("  --max-usd-per-month 40 --cost-rate 1000");
    const priced = { ...costBudget, cost: { ...costBudget.cost, vcpu_hour_usd: 0.04 } };
    const file = cliCommand(BASE, checkStatus({ budget: priced }), spec(), presets);
    expect(file.flags).toBe(false);
    expect(file.reasons).toEqual(["cost inputs other than the request rate (--cost-rate)"]);
  });
});

describe("a pipeline check's request and commands", () => {
  const pipelineSpec = (candidate = {}, load = {}) =>
    pipelineCheckExperiment(candidate, load).spec as unknown as PipelineSpec;
  const budget = {
    cores_per_10k_overhead_pct: 30,
    cores_per_10k_added: null,
    rss_overhead_pct: 20,
    rss_added_mib: 64,
    max_lost_spans: 0,
  };

  it("rebuilds the request from the stored spec: shipped variants by themselves", () => {
    expect(pipelineCheckRequest(pipelineCheckStatus({ budget }), pipelineSpec())).toEqual({
      subject: "collector",
      baseline: { pipeline: "passthrough" },
      candidate: { pipeline: "batch-default" },
      load: {
        spans_per_s: 1000,
        warmup_s: 2,
        duration_s: 3,
        drain_s: 6,
        spans_per_trace: 5,
        attribute_bytes: 0,
        services_per_trace: 1,
      },
      budget: {
        cores_per_10k_overhead_pct: 30,
        rss_overhead_pct: 20,
        rss_added_mib: 64,
        max_lost_spans: 0,
      },
      rounds: 1,
      strict: true,
    });
  });

  it("spells it with tracetax check --collector flags when they say it exactly", () => {
    const request = pipelineCheckRequest(pipelineCheckStatus({ budget }), pipelineSpec());
    const cli = pipelineCliCommand(BASE, request);
    expect(cli.flags).toBe(true);
    expect(cli.command).toBe(
      [
        "tracetax check --api http://tracetax.internal:8000",
        "  --collector --baseline passthrough --candidate batch-default",
        "  --spans-per-s 1000 --duration 3 --rounds 1",
        "  --cores-per-10k-overhead-pct 30 --rss-overhead-pct 20 --rss-added-mib 64 --max-lost-spans 0",
        "  --strict --junit tracetax-junit.xml",
      ].join(" \\\n"),
    );
    const curl = curlCommands(BASE, request);
    const body = curl.slice(curl.indexOf("-d '") + 4, curl.indexOf("' | jq -r .id)"));
    expect(JSON.parse(body)).toEqual(request);
  });

  it("gives an overlay file by its path, named as the CLI names it", () => {
    const file = pipelineSpec({ pipeline: null, config_file: "/srv/otel/Mine.yaml" });
    file.name = "check: mine vs passthrough";
    const request = pipelineCheckRequest(pipelineCheckStatus(), file);
    expect(request.candidate).toEqual({ name: "mine", config_file: "/srv/otel/Mine.yaml" });
    const cli = pipelineCliCommand(BASE, request);
    expect(cli.flags).toBe(true);
    expect(cli.command).toContain("--candidate /srv/otel/Mine.yaml");
    expect(cli.command).not.toContain("--cores-per-10k");
    expect(cliVariantName("/a/b/Tail.Sampling.yml")).toBe("tail.sampling");
  });

  it("reads the request from a file when the flags cannot say it", () => {
    const stored = pipelineSpec(
      { settings: { LAB_BATCH_TIMEOUT: "2s" } },
      {
        warmup_s: 1,
        drain_s: 10,
        ramp: { factor: 1.5, step_s: 3, max_spans_per_s: 9000, max_steps: 12 },
      },
    );
    stored.name = "check: tuned vs passthrough";
    stored.seed = 7;
    const request = pipelineCheckRequest(pipelineCheckStatus(), stored);
    expect(request.candidate).toEqual({
      name: "tuned",
      pipeline: "batch-default",
      settings: { LAB_BATCH_TIMEOUT: "2s" },
    });
    expect(request.seed).toBe(7);
    const cli = pipelineCliCommand(BASE, request);
    expect(cli.flags).toBe(false);
    expect(cli.reasons).toEqual([
      "a warm-up of 1 s (the CLI uses 2 s)",
      "a drain of 10 s (the CLI leaves 6 s)",
      "a ramp (the CLI runs none)",
      "seed 7",
      "the candidate's LAB_* settings",
      "the candidate's name of its own",
    ]);
    const lines = cli.command.split("\n");
    expect(lines.at(-1)).toBe(
      "tracetax check --api http://tracetax.internal:8000 --spec tracetax-check.json --junit tracetax-junit.xml",
    );
    expect(JSON.parse(lines.slice(1, -2).join("\n"))).toEqual(request);
    // A file whose name is not the CLI's, or not *.yaml, is not a flag either.
    const odd = pipelineCheckRequest(
      pipelineCheckStatus(),
      pipelineSpec({ pipeline: null, config_file: "/srv/otel/mine.conf" }),
    );
    expect(pipelineCliProblems(odd)).toEqual([
      "the candidate's config file as named (the CLI names a *.yaml file after it)",
    ]);
  });

  it("reads the pipeline budget lines in their units", () => {
    expect(budgetSummary(budget)).toEqual([
      "Collector cores per 10k spans/s overhead ≤ 30 %",
      "Collector peak RSS overhead ≤ 20 %",
      "Collector peak RSS added ≤ 64 MiB",
      "Spans lost in the pipeline ≤ 0 spans",
    ]);
    expect(budgetLimit("cores_per_10k_added", 0.005)).toBe("≤ 5.00 millicores");
    expect(budgetMeasure("cores_per_10k_added", 0.0012)).toBe("+1.20 millicores");
    expect(budgetMeasure("rss_added_mib", 2.5)).toBe("+2.50 MiB");
    expect(budgetMeasure("rss_added_mib", -0.5)).toBe("\u2212512 KiB");
    expect(budgetMeasure("rss_overhead_pct", 0.19)).toBe("+0.2 %");
    expect(budgetMeasure("max_lost_spans", 1200)).toBe("1,200 spans");
    expect(budgetLabel("isolation", true)).toBe("Isolation of the lab Collector's cores");
    expect(budgetLabel("isolation")).toBe("Isolation of the service's cores");
  });
});
