import { describe, expect, it } from "vitest";
import { comparisonRows } from "../../components/results/comparison";
import { pipelineDiagnostics, pipelineResults } from "../../test/pipelineFixtures";
import {
  MAX_SUSTAINABLE,
  PIPELINE_METRICS,
  pipelineMetrics,
  pipelineSideBySideLines,
  rampLimits,
} from "./pipelineComparison";

const { configurations, baseline } = pipelineResults();

function row(
  key: string,
  rows = comparisonRows(configurations, baseline, pipelineDiagnostics(), PIPELINE_METRICS),
) {
  const found = rows.find((r) => r.metric.key === key);
  if (!found) throw new Error(`no row ${key}`);
  return found;
}

describe("the pipeline comparison's rows", () => {
  it("formats each variant's figures, millicores below a core", () => {
    expect(row("cpu_cores").cells.map((c) => c.text)).toEqual([
      "7.80 millicores",
      "9.00 millicores",
      "11.5 millicores",
      "11.0 millicores",
    ]);
    expect(row("spans_per_s").cells[0].text).toBe("1,144 spans/s");
    expect(row("rss_max_bytes").cells[3].text).toBe("57.4 MiB");
    expect(row("kept_ratio").cells[3].text).toBe("24.8 %");
    expect(row("downstream_cpu_cores").cells[2].text).toBe("14.8 millicores");
  });

  it("carries each change from the diagnostics, with its summary and direction", () => {
    const cpu = row("cpu_cores");
    expect(cpu.cells[0]).toMatchObject({ isBaseline: true, overhead: null });
    expect(cpu.cells[1].overhead?.summary).toBe(
      "+1.2 millicores Collector CPU, +15.4% \u2014 no significant change",
    );
    expect(cpu.cells[1].direction).toBe("unchanged");
    expect(cpu.noiseFloor?.note).toMatch(/needs a second configuration/);
    expect(row("spans_per_s").cells[1].overhead).toBeNull();
  });

  it("shows an unknown count as unknown, never 0", () => {
    const lost = row("lost");
    expect(lost.cells.map((c) => c.text)).toEqual(["0", "0", "0", "unknown"]);
    expect(lost.cells[3].direction).toBe("unknown");
    expect(row("not_arrived").cells[3].text).toBe("3,010");
    const missing = comparisonRows(
      [{ ...configurations[0], ledger_totals: { generated: null, lost: null, not_arrived: null } }],
      baseline,
      null,
      PIPELINE_METRICS,
    );
    expect(missing.find((r) => r.metric.key === "generated")?.cells[0].text).toBe("unknown");
  });

  it("adds the ramp's highest sustainable rate only when a variant has one", () => {
    const keys = (metrics: { key: string }[]) => metrics.map((m) => m.key);
    // Without a ramp: the figures, then the span delay rows (unknown until diagnostics load).
    expect(keys(pipelineMetrics(configurations))).toEqual([
      ...keys(PIPELINE_METRICS),
      "delay_p50_us",
      "delay_p99_us",
    ]);
    expect(pipelineMetrics(configurations).at(-1)?.value(configurations[0])).toBeNull();
    const ramped = [
      { ...configurations[0], max_sustainable_spans_per_s: 42_000, ramp_limited_by: [] },
      {
        ...configurations[1],
        max_sustainable_spans_per_s: 30_000,
        ramp_limited_by: ["exporter queue"],
      },
    ];
    expect(pipelineMetrics(ramped).at(-1)).toBe(MAX_SUSTAINABLE);
    const rows = comparisonRows(
      ramped,
      baseline,
      null,
      pipelineMetrics(ramped),
      rampLimits(ramped),
    );
    const max = rows.find((r) => r.metric === MAX_SUSTAINABLE);
    expect(max?.cells.map((c) => [c.text, c.limitedBy])).toEqual([
      ["42,000 spans/s", null],
      ["30,000 spans/s", "exporter queue"],
    ]);
  });
});

describe("the side-by-side rows", () => {
  const side = (cost: number, rss: number) => ({
    rounds: 2,
    cores_per_10k_spans_s: cost,
    cpu_cores: cost / 2,
    spans_per_s: 5000,
    rss_max_bytes: rss,
    failed_rounds: [],
    per_round: [],
  });
  const paired = configurations.map((c, index) => ({
    ...c,
    side_by_side: side(0.04 + index * 0.01, 50_000_000 + index * 1_000_000),
  }));
  const use = {
    metrics: ["cores_per_10k_spans_s", "rss_max_bytes"],
    rounds: [1, 2],
    latency_rounds: [],
    note: "cores per 10k spans/s and peak RSS are paired from each round's side-by-side phase",
  };

  it("adds a row per paired figure after the RSS peak, and moves the change to it", () => {
    const metrics = pipelineMetrics(paired, { ...pipelineDiagnostics(), side_by_side: use });
    const keys = metrics.map((m) => m.key);
    const rss = keys.indexOf("rss_max_bytes");
    expect(keys.slice(rss + 1, rss + 3)).toEqual([
      "cores_per_10k_spans_s_side_by_side",
      "rss_max_bytes_side_by_side",
    ]);
    const byKey = Object.fromEntries(metrics.map((m) => [m.key, m]));
    expect(byKey.cores_per_10k_spans_s.overheadKey).toBeNull();
    expect(byKey.cores_per_10k_spans_s_side_by_side.overheadKey).toBe("cores_per_10k_spans_s");
    expect(byKey.rss_max_bytes_side_by_side.format(50_000_000)).toBe("47.7 MiB");
  });

  it("keeps the change on the solo row when no round was paired, and adds nothing without the phase", () => {
    const none = { ...use, rounds: [] };
    const metrics = pipelineMetrics(paired, { ...pipelineDiagnostics(), side_by_side: none });
    const byKey = Object.fromEntries(metrics.map((m) => [m.key, m]));
    expect(byKey.cores_per_10k_spans_s.overheadKey).toBe("cores_per_10k_spans_s");
    expect(byKey.cores_per_10k_spans_s_side_by_side.overheadKey).toBeNull();
    expect(pipelineMetrics(configurations).map((m) => m.key)).not.toContain(
      "rss_max_bytes_side_by_side",
    );
  });

  it("says which rounds were paired and which phases failed", () => {
    const failed = paired.map((c, index) =>
      index === 1
        ? {
            ...c,
            side_by_side: {
              ...side(0.05, 1),
              failed_rounds: [{ round: 2, error: "the side-by-side phase failed" }],
            },
          }
        : c,
    );
    const lines = pipelineSideBySideLines(
      failed,
      { ...pipelineDiagnostics(), side_by_side: use },
      3,
    );
    expect(lines.note).toMatch(/Paired side by side in rounds 1 and 2 \(the others'/);
    expect(lines.problems).toEqual([
      `${failed[1].configuration} round 3: the side-by-side phase failed`,
    ]);
  });
});
