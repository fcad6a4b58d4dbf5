import { describe, expect, it } from "vitest";
import { round } from "../../test/fixtures";
import {
  affectedStages,
  stackDown,
  stackDownReasons,
  stackDownRounds,
  stackDownSentence,
} from "./stackHealth";

const collectorAndTempo = {
  flagged: true,
  down: ["collector", "tempo"],
  before: { tempo: "HTTP 503" },
  after: { collector: "connection refused", tempo: "HTTP 503" },
  note: "collector, tempo not ready before or after this round",
};

describe("a round's stack health", () => {
  it("reads the components down from the round or from its resources", () => {
    expect(stackDown(round("batch", 1, { stack_health: collectorAndTempo }))).toEqual([
      "collector",
      "tempo",
    ]);
    expect(
      stackDown(round("batch", 1, { resources: { stack_health: collectorAndTempo } })),
    ).toEqual(["collector", "tempo"]);
    const healthy = { flagged: false, down: [], before: {}, after: {} };
    expect(stackDown(round("batch", 1, { stack_health: healthy }))).toEqual([]);
    expect(stackDown(round("batch", 1))).toEqual([]);
    expect(stackDown(round("batch", 1, { stack_health: { down: "tempo" } }))).toEqual([]);
  });

  it("names the completed rounds with a component down, counting from 1, in the order they ran", () => {
    const rounds = [
      round("none", 1, { stack_health: { down: ["loki"] } }),
      round("batch", 1, { order_index: 1, stack_health: collectorAndTempo }),
      round("none", 0),
      round("batch", 0, { status: "failed", stack_health: { down: ["tempo"] } }),
    ];
    expect(stackDownRounds(rounds)).toEqual([
      { label: "none round 2", down: ["loki"] },
      { label: "batch round 2", down: ["collector", "tempo"] },
    ]);
    expect(stackDownRounds([round("none", 0)])).toEqual([]);
  });

  it("says which of a service's ledger stages read unknown", () => {
    const down = { label: "batch round 2", down: ["collector", "tempo"] };
    expect(stackDownSentence(down, "service")).toBe(
      "batch round 2: collector, tempo were down: its Collector and stored spans stages read unknown",
    );
    expect(stackDownSentence({ label: "none round 1", down: ["loki"] }, "service")).toBe(
      "none round 1: loki was down: its stored log records stage reads unknown",
    );
    // The metrics store holds the Collector's own counters and the request counter.
    expect(affectedStages(["metrics", "collector"], "service")).toEqual([
      "Collector",
      "stored request counter",
    ]);
  });

  it("says a pipeline's stored stage may be short, and nothing else, for the stack's Collector or Tempo", () => {
    expect(stackDownSentence({ label: "batch round 1", down: ["tempo"] }, "pipeline")).toContain(
      "batch round 1: tempo was down: its stored stage may be short",
    );
    // A pipeline's own counters are scraped from its Collectors, not read from the stores.
    expect(stackDownSentence({ label: "batch round 1", down: ["loki"] }, "pipeline")).toBe(
      "batch round 1: loki was down: its ledger does not read from it",
    );
  });

  it("gives each component's reason and when it was probed", () => {
    expect(stackDownReasons(round("batch", 1, { stack_health: collectorAndTempo }))).toEqual([
      "collector (after): connection refused",
      "tempo (before and after): HTTP 503",
    ]);
    expect(stackDownReasons(round("batch", 1))).toEqual([]);
  });
});
