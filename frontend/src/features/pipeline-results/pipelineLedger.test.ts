import { describe, expect, it } from "vitest";
import type { PipelineRoundLedger } from "../../api/types";
import type { CountStep, FlowStep, HopStep } from "../../components/results/ledger";
import { pipelineDiagnostics } from "../../test/pipelineFixtures";
import {
  pipelineFlow,
  pipelineRounds,
  pipelineStatus,
  processorCounters,
  sampleTraces,
  storedDetails,
  storedProblem,
} from "./pipelineLedger";

const entry = (configuration: string): PipelineRoundLedger => {
  const found = pipelineDiagnostics().ledger.find((e) => e.configuration === configuration);
  if (!found) throw new Error(`no ${configuration} in the fixture`);
  return found;
};

const counts = (steps: FlowStep[]) =>
  steps
    .filter((s): s is CountStep => s.type === "count")
    .map((s) => [s.stage, s.value, ...(s.details ?? []).map((d) => `${d.label}: ${d.text}`)]);
const hops = (steps: FlowStep[]) => steps.filter((s): s is HopStep => s.type === "hop");

describe("a pipeline round's ledger as a flow", () => {
  it("goes from generated to stored, with each downstream and Tempo's trace checks", () => {
    const flow = pipelineFlow(entry("loadbalancing"));
    expect(flow.range).toBe("from generated to stored in Tempo");
    expect(counts(flow.steps)).toEqual([
      ["generated", 4020],
      ["receiver_accepted", 4020],
      ["exporter_sent", 4020],
      ["downstream_accepted", 4020, "downstream-1: 1,960", "downstream-2: 2,060"],
      ["downstream_sent", 4020],
      [
        "stored",
        4020,
        "traces: 804",
        "complete traces: 804 of 804 checked",
        "whole on one downstream: 804 of 804",
      ],
    ]);
    // Refused and never received on the receiver's hop; an unexposed counter stays unknown.
    expect(hops(flow.steps)[0].items).toMatchObject([
      { stage: "receiver_refused", value: 0 },
      { stage: "receiver_not_received", value: 0 },
    ]);
    expect(hops(flow.steps)[1].items).toMatchObject([
      { stage: "exporter_send_failed", value: null, reason: expect.stringMatching(/not expose/) },
      { stage: "exporter_enqueue_failed", value: null },
    ]);
    expect(flow.unknown).toBe(3);
    expect(pipelineStatus(entry("loadbalancing"))).toEqual({
      className: "tag-ok",
      text: "none lost",
    });
  });

  it("says what a sampling pipeline kept, and leaves its unknown losses unknown", () => {
    const tail = entry("tail-sampling");
    expect(pipelineStatus(tail)).toEqual({
      className: "tag-unknown",
      text: "lost unknown, 24.8 % kept",
    });
    const flow = pipelineFlow(tail);
    expect(counts(flow.steps).map(([stage, value]) => [stage, value])).toContainEqual([
      "exporter_sent",
      990,
    ]);
    // The exporter's failures are unknown: no gap is computed across them.
    expect(hops(flow.steps)[1].items.some((i) => i.type === "gap")).toBe(false);
  });

  it("puts what processors held back on the hop, not as a loss; a gap before sent is neutral", () => {
    const base = entry("tail-sampling");
    const known: PipelineRoundLedger = {
      ...base,
      ledger: {
        ...base.ledger,
        processors: { tail_sampling: { incoming: 4000, outgoing: 990, held_or_dropped: 3010 } },
        processor_counters: { otelcol_processor_tail_sampling_sampling_trace_dropped_too_early: 0 },
        exporter: { sent: 990, send_failed: 0, enqueue_failed: 0, queue_size: 12 },
      },
    };
    const flow = pipelineFlow(known);
    const hop = hops(flow.steps)[1];
    expect(hop.items).toMatchObject([
      { stage: "processor:tail_sampling", value: 3010, kept: true },
      { stage: "exporter_send_failed", value: 0 },
      { stage: "exporter_enqueue_failed", value: 0 },
    ]);
    expect(flow.lost).toBe(0);
    const sent = flow.steps.find((s) => s.type === "count" && s.stage === "exporter_sent");
    expect(sent).toMatchObject({
      details: [{ label: "left in the queue after the drain", text: "12" }],
    });
    expect(processorCounters(known)).toEqual([
      ["otelcol_processor_tail_sampling_sampling_trace_dropped_too_early", 0],
    ]);
    // Without the processors' counters, what went missing inside is a gap, not counted lost.
    const { processors: _processors, ...rest } = known.ledger;
    const gapFlow = pipelineFlow({ ...known, ledger: rest });
    expect(hops(gapFlow.steps)[1].items.at(-1)).toMatchObject({
      type: "gap",
      value: 3010,
      lost: false,
    });
    expect(gapFlow.lost).toBe(0);
  });

  it("keeps Tempo's side unknown, with why, when it was not read or did not answer", () => {
    const base = entry("passthrough");
    const stored = (value: PipelineRoundLedger["stored"]) =>
      pipelineFlow({ ...base, stored: value }).steps.find(
        (s): s is CountStep => s.type === "count" && s.stage === "stored",
      );
    expect(stored(null)).toMatchObject({ value: null, reason: "not read from Tempo yet" });
    expect(stored({ error: "HTTP 503" })).toMatchObject({ value: null, reason: "Tempo: HTTP 503" });
    expect(storedProblem(base.stored)).toBeNull();
    // Too many traces to count: the count is unknown with why, the sample's checks still show.
    const uncounted = {
      ...base.stored,
      stored_spans: null,
      traces_found: null,
      uncounted: "20000 or more traces in Tempo for the round, too many to count by search",
    };
    expect(stored(uncounted)).toMatchObject({
      value: null,
      reason: `Tempo: ${uncounted.uncounted}`,
    });
    expect(storedDetails(uncounted).map((d) => d.label)).toContain("complete traces");
    // A lost count is counted, and a gap before Tempo is a loss.
    const lost: PipelineRoundLedger = {
      ...base,
      ledger: { ...base.ledger, lost: 25 },
      stored: { ...base.stored, stored_spans: 3975 },
    };
    expect(pipelineStatus(lost)).toEqual({ className: "tag-bad", text: "25 lost" });
    expect(hops(pipelineFlow(lost).steps).at(-1)?.items).toEqual([
      { type: "gap", label: "not found in Tempo", value: 25, lost: true },
    ]);
  });

  it("lists rounds and sample traces per variant", () => {
    const ledger = pipelineDiagnostics().ledger;
    expect(pipelineRounds(ledger)).toEqual([0]);
    const traces = sampleTraces(ledger);
    expect(Object.keys(traces).sort()).toEqual([
      "batch-default",
      "loadbalancing",
      "passthrough",
      "tail-sampling",
    ]);
    expect(traces.loadbalancing[0]).toBe("8a8b2610d8c21c95ba2371b116df112d");
  });
});
