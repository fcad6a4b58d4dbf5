import { describe, expect, it } from "vitest";
import { diagnostics, roundLedger, signal, spansLedger } from "../../test/fixtures";
import {
  type CountStep,
  combineRounds,
  type HopStep,
  hasUnknownStages,
  ledgerFlow,
  ledgerRounds,
} from "./ledger";

const counts = (steps: ReturnType<typeof ledgerFlow>["steps"]) =>
  steps.filter((s): s is CountStep => s.type === "count").map((s) => [s.stage, s.value]);
const hops = (steps: ReturnType<typeof ledgerFlow>["steps"]) =>
  steps.filter((s): s is HopStep => s.type === "hop");

describe("ledgerFlow", () => {
  it("lays a balanced signal out from expected to stored, losses between the counts", () => {
    const flow = ledgerFlow(spansLedger(1500, 0, 1500, 1500));
    expect(flow.steps.map((s) => s.type)).toEqual([
      "count",
      "hop",
      "count",
      "hop",
      "count",
      "hop",
      "count",
    ]);
    expect(counts(flow.steps)).toEqual([
      ["expected", 1500],
      ["collector_accepted", 1500],
      ["exporter_sent", 1500],
      ["stored", 1500],
    ]);
    // The refusal happens at the Collector's door: on the hop before "accepted".
    expect(hops(flow.steps)[0].items.map((i) => i.type === "loss" && i.stage)).toEqual([
      "sdk_dropped",
      "collector_refused",
    ]);
    expect(hops(flow.steps)[1].items.map((i) => i.type === "loss" && i.stage)).toEqual([
      "exporter_failed",
    ]);
    expect(hops(flow.steps)[2].items).toEqual([]);
    expect(flow).toMatchObject({ label: "Spans", balanced: true, unknown: 0, lost: 0 });
  });

  it("marks a loss where it happened and what no stage counted as a gap on its hop", () => {
    // 2,500 expected, the SDK dropped 1,000, nothing reached the Collector (a wrong endpoint).
    const flow = ledgerFlow(
      signal(
        "spans",
        [
          ["expected", 2500],
          ["sdk_dropped", 1000],
          ["collector_accepted", 0],
          ["collector_refused", 0],
          ["exporter_sent", 0],
          ["exporter_failed", 0],
          ["stored", 0],
        ],
        false,
      ),
    );
    const first = hops(flow.steps)[0].items;
    expect(first[0]).toMatchObject({ type: "loss", stage: "sdk_dropped", value: 1000 });
    expect(first.at(-1)).toMatchObject({
      type: "gap",
      value: 1500,
      label: "lost between the SDK and the Collector, counted by no stage",
    });
    expect(hops(flow.steps)[1].items.some((i) => i.type === "gap")).toBe(false);
    expect(flow).toMatchObject({ balanced: false, lost: 2500 });
  });

  it("keeps an unknown stage unknown with its reason, and computes no gap across it", () => {
    const flow = ledgerFlow(spansLedger(1500, null, 1500, null));
    const dropped = hops(flow.steps)[0].items[0];
    expect(dropped).toMatchObject({
      type: "loss",
      stage: "sdk_dropped",
      value: null,
      reason: "this SDK exposes no dropped-span counter",
    });
    const stored = flow.steps.at(-1) as CountStep;
    expect(stored).toMatchObject({ stage: "stored", value: null, reason: "Tempo: HTTP 503" });
    expect(flow.steps.some((s) => s.type === "hop" && s.items.some((i) => i.type === "gap"))).toBe(
      false,
    );
    expect(flow).toMatchObject({ balanced: null, unknown: 2 });
  });

  it("flags more arriving than was sent (another sender, a counter reset)", () => {
    const flow = ledgerFlow(
      signal("request_counter", [
        ["expected", 300],
        ["stored", 320],
      ]),
    );
    expect(hops(flow.steps)[0].items[0]).toMatchObject({ type: "gap", value: -20 });
    expect(flow.lost).toBe(0);
  });
});

describe("combineRounds", () => {
  const ledger = [
    roundLedger("simple", 0, [spansLedger(1000, 0, 1000, 1000)]),
    roundLedger("simple", 1, [spansLedger(1200, 0, 1190, null)]),
    roundLedger("none", 0, [spansLedger(0, 0, 0, 0)]),
  ];

  it("sums a configuration's rounds stage by stage", () => {
    const [spans] = combineRounds(ledger.slice(0, 1).concat(ledger[2]), "simple");
    expect(spans.stages.find((s) => s.stage === "expected")?.value).toBe(1000);
    const [both] = combineRounds(
      [...ledger.slice(0, 1), roundLedger("simple", 1, [spansLedger(1200, 0, 1200, 1200)])],
      "simple",
    );
    expect(both.stages.find((s) => s.stage === "stored")?.value).toBe(2200);
    expect(both.balanced).toBe(true);
  });

  it("is unknown, with each round's reason, when any round could not read a stage", () => {
    const [spans] = combineRounds(ledger, "simple");
    expect(spans.stages.find((s) => s.stage === "stored")).toEqual({
      stage: "stored",
      value: null,
      unknown_reason: "round 2: Tempo: HTTP 503",
    });
    expect(spans.stages.find((s) => s.stage === "collector_accepted")?.value).toBe(2190);
    expect(spans.balanced).toBeNull();
  });

  it("picks one round", () => {
    const [spans] = combineRounds(ledger, "simple", 1);
    expect(spans.stages[0]).toMatchObject({ stage: "expected", value: 1200 });
    expect(combineRounds(ledger, "missing")).toEqual([]);
  });

  it("knows when collecting again may help", () => {
    expect(hasUnknownStages(ledger)).toBe(true);
    expect(hasUnknownStages(ledger.slice(0, 1))).toBe(false);
    expect(ledgerRounds(ledger)).toEqual([0, 1]);
    expect(hasUnknownStages(diagnostics().ledger)).toBe(true);
  });
});
