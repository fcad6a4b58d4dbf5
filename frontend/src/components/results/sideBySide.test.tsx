import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { ConfigurationAggregates } from "../../api/types";
import { aggregates, diagnostics } from "../../test/fixtures";
import { ComparisonTable } from "./ComparisonTable";
import { SideBySideNotes } from "./SideBySideNotes";
import {
  precisionLine,
  roundList,
  serviceMetrics,
  sideBySideKey,
  sideBySideLine,
  sideBySideProblems,
} from "./sideBySide";

afterEach(cleanup);

const NOTE =
  "CPU per request, RSS and p50 are paired from each round's side-by-side phase (every configuration live at once on the service cores); tails and max throughput from each configuration alone";

function side(
  cpu: number,
  extra: Partial<NonNullable<ConfigurationAggregates["side_by_side"]>> = {},
): NonNullable<ConfigurationAggregates["side_by_side"]> {
  return {
    rounds: 3,
    cpu_per_request_us: cpu,
    rss_max_bytes: 40 * 1024 * 1024,
    p50_us: 610,
    latency_flagged_rounds: [],
    failed_rounds: [],
    per_round: [],
    ...extra,
  };
}

const configurations = [
  aggregates("none", 1, { side_by_side: side(480) }),
  aggregates("batch-default", 1.5, {
    side_by_side: side(700, {
      latency_flagged_rounds: [2],
      failed_rounds: [{ round: 1, error: "the side-by-side phase failed: port in use" }],
    }),
  }),
];
const use = {
  metrics: ["cpu_per_request_us", "rss_max_bytes", "p50"],
  rounds: [1, 3],
  latency_rounds: [1],
  note: NOTE,
};

describe("the side-by-side rows", () => {
  it("leave the table as it was without a side-by-side phase", () => {
    const keys = serviceMetrics([aggregates("none", 1)], null).map((m) => m.key);
    expect(keys).not.toContain(sideBySideKey("p50"));
  });

  it("come after RSS and carry the change when the diagnostics paired it there", () => {
    const metrics = serviceMetrics(configurations, use);
    const keys = metrics.map((m) => m.key);
    expect(keys.slice(keys.indexOf("rss"), keys.indexOf("rss") + 4)).toEqual([
      "rss",
      "p50_side_by_side",
      "cpu_per_request_side_by_side",
      "rss_side_by_side",
    ]);
    const byKey = Object.fromEntries(metrics.map((m) => [m.key, m]));
    expect(byKey.cpu_per_request_side_by_side.overheadKey).toBe("cpu_per_request_us");
    expect(byKey.cpu_per_request.overheadKey).toBeNull();
    expect(byKey.p99.overheadKey).toBe("p99");
    // p50 without a round whose latency could be used stays on the alone row.
    const flagged = serviceMetrics(configurations, { ...use, latency_rounds: [] });
    const flaggedByKey = Object.fromEntries(flagged.map((m) => [m.key, m]));
    expect(flaggedByKey.p50.overheadKey).toBe("p50");
    expect(flaggedByKey.p50_side_by_side.overheadKey).toBeNull();
  });

  it("say which rounds were paired and what went wrong", () => {
    expect(roundList([1, 2, 4])).toBe("rounds 1, 2 and 4");
    expect(roundList([3])).toBe("round 3");
    expect(sideBySideLine(use, 3)).toContain(
      "CPU per request and RSS paired side by side in rounds 1 and 3",
    );
    expect(sideBySideLine({ ...use, rounds: [1, 2, 3], latency_rounds: [1, 2, 3] }, 3)).toBe(
      `${NOTE}. CPU per request and RSS paired side by side in every round; p50 in the same rounds.`,
    );
    expect(sideBySideProblems(configurations)).toEqual([
      {
        configuration: "batch-default",
        text: "round 2 failed: the side-by-side phase failed: port in use; latency not used in round 3 (the cores were too busy)",
      },
    ]);
  });

  it("render in the comparison table with the side-by-side values", () => {
    render(
      <ComparisonTable
        configurations={configurations}
        baseline="none"
        order={["none", "batch-default"]}
        diagnostics={diagnostics({ side_by_side: use })}
      />,
    );
    const row = screen.getByRole("row", { name: /^CPU per request side by side/ });
    expect(row.getAttribute("data-metric")).toBe("cpu_per_request_side_by_side");
    expect(within(row).getAllByRole("cell")[0].textContent).toContain("480 µs");
  });
});

describe("the precision line", () => {
  it("reads the engine's record", () => {
    expect(
      precisionLine({
        reached: true,
        rounds: 8,
        stopped: "reached after 8 rounds",
        summary: "p50 ±4.1% (target ±5%)",
        elapsed_s: 611.2,
      }),
    ).toEqual({
      reached: true,
      text: "Precision: reached after 8 rounds (611 s)",
      summary: "p50 ±4.1% (target ±5%)",
    });
    expect(precisionLine({ reached: false, rounds: 12 }).text).toBe(
      "Precision: not reached after 12 rounds",
    );
  });

  it("renders under the table with the side-by-side note", () => {
    render(
      <SideBySideNotes
        configurations={configurations}
        totalRounds={3}
        diagnostics={diagnostics({
          side_by_side: use,
          precision: {
            reached: false,
            rounds: 12,
            stopped: "not reached in the time budget (1800 s): stopped after 12 rounds",
            summary: "p99 ±9.8% (target ±5%)",
          },
        })}
      />,
    );
    expect(screen.getByTestId("side-by-side-note").textContent).toContain(NOTE);
    expect(screen.getByTestId("side-by-side-problems").textContent).toContain("port in use");
    const precision = screen.getByTestId("precision");
    expect(precision.textContent).toBe(
      "Precision: not reached in the time budget (1800 s): stopped after 12 rounds — p99 ±9.8% (target ±5%)",
    );
    expect(precision.getAttribute("data-reached")).toBe("false");
  });
});
