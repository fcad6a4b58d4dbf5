import { describe, expect, it } from "vitest";
import type { RoundRaw } from "../../api/types";
import { pipelineResults } from "../../test/pipelineFixtures";
import { generatorOf, pipelineRoundColumns, rampOf, roundRamps } from "./pipelineRounds";

const rounds = pipelineResults().rounds;
const passthrough = rounds.find((r) => r.configuration === "passthrough") as RoundRaw;

const ramp = {
  ramp: [
    { spans_per_s: 2000, achieved_spans_per_s: 1998, cpu_cores: 0.02, sustained: true, why: null },
    {
      spans_per_s: 4000,
      achieved_spans_per_s: 3100,
      cpu_cores: 0.9,
      refused: 120,
      sustained: false,
      why: "the receiver refused 120 spans",
    },
  ],
  max_sustainable_spans_per_s: 2000,
  limited_by: "receiver",
  why: "the receiver refused 120 spans",
};

describe("a pipeline round's records", () => {
  it("reads telemetrygen's record and the Collector's figures into the rounds table", () => {
    expect(generatorOf(passthrough)).toEqual({
      spans: 4000,
      target: 1000,
      achieved: 998,
      saturated: false,
    });
    const columns = pipelineRoundColumns(rounds);
    expect(columns.map((c) => c.header)).toEqual([
      "Spans generated",
      "telemetrygen rate",
      "Collector CPU",
      "RSS peak",
      "Kept",
    ]);
    expect(columns.map((c) => c.cell(passthrough))).toEqual([
      "4,000",
      "998 of 1,000 spans/s",
      "7.80 millicores",
      "54.3 MiB",
      "100 %",
    ]);
    // A round still running (a summary) has none of them.
    const { open_phase: _o, closed_phase: _c, resources: _r, ...summary } = passthrough;
    expect(columns.map((c) => c.cell(summary as RoundRaw))).toEqual(["—", "—", "—", "—", "—"]);
  });

  it("has no ramp until a round ran one, then reads it", () => {
    expect(rounds.map(rampOf)).toEqual([null, null, null, null]);
    expect(roundRamps(rounds, ["passthrough"])).toEqual([]);
    const ramped = rounds.map((r) =>
      r.configuration === "passthrough" ? { ...r, closed_phase: ramp } : r,
    );
    const [only] = roundRamps(ramped, ["passthrough", "batch-default"]);
    expect(only).toMatchObject({
      configuration: "passthrough",
      round: 0,
      max_sustainable_spans_per_s: 2000,
      limited_by: "receiver",
    });
    expect(only.steps).toHaveLength(2);
    const columns = pipelineRoundColumns(ramped);
    expect(columns.at(-1)?.header).toBe("Max sustainable");
    expect(
      columns.at(-1)?.cell(ramped.find((r) => r.configuration === "passthrough") as RoundRaw),
    ).toBe("2,000 spans/s (limited by: receiver)");
  });
});
