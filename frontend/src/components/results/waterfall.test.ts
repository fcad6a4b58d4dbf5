import { describe, expect, it } from "vitest";
import { otlpTrace } from "../../test/fixtures";
import { idToHex, traceSpans, waterfallLayout } from "./waterfall";

describe("waterfallLayout", () => {
  const layout = waterfallLayout(otlpTrace());

  it("orders spans as a tree, children by start time, with their depth", () => {
    expect(layout.rows.map((r) => [r.name, r.depth])).toEqual([
      ["GET /work", 0],
      ["work.compute", 1],
      ["work.fetch", 1],
    ]);
    expect(layout.services).toEqual(["tracetax-demo-go"]);
    expect(layout.rows.map((r) => r.kind)).toEqual(["SERVER", "INTERNAL", "CLIENT"]);
  });

  it("places each bar by its time as a share of the trace, from nanosecond strings", () => {
    expect(layout.durationNs).toBe(1_000_000);
    const [root, compute, fetch] = layout.rows;
    expect(root).toMatchObject({
      startNs: 0,
      durationNs: 1_000_000,
      leftPercent: 0,
      widthPercent: 100,
    });
    expect(compute).toMatchObject({ startNs: 100_000, durationNs: 200_000 });
    expect(compute.leftPercent).toBeCloseTo(10);
    expect(compute.widthPercent).toBeCloseTo(20);
    expect(fetch.leftPercent).toBeCloseTo(50);
    expect(fetch.error).toBe(true);
  });

  it("shows ids in hex, whether Tempo sent base64 or hex", () => {
    expect(idToHex("DPjWCsPeN9c=")).toBe("0cf8d60ac3de37d7");
    expect(idToHex("0CF8D60AC3DE37D7")).toBe("0cf8d60ac3de37d7");
    expect(idToHex(undefined)).toBe("");
    expect(layout.rows[1].parentSpanId).toBe("0cf8d60ac3de37d7");
  });

  it("shows a span whose parent is not in the trace as a root, and survives cycles", () => {
    const trace = {
      resourceSpans: [
        {
          resource: { attributes: [] },
          scopeSpans: [
            {
              spans: [
                {
                  spanId: "aaaaaaaaaaaaaaaa",
                  parentSpanId: "bbbbbbbbbbbbbbbb",
                  name: "a",
                  kind: 2,
                  startTimeUnixNano: "1000",
                  endTimeUnixNano: "2000",
                },
                {
                  spanId: "bbbbbbbbbbbbbbbb",
                  parentSpanId: "aaaaaaaaaaaaaaaa",
                  name: "b",
                  startTimeUnixNano: "1500",
                  endTimeUnixNano: "1500",
                },
                {
                  spanId: "cccccccccccccccc",
                  parentSpanId: "dddddddddddddddd",
                  name: "orphan",
                  startTimeUnixNano: "1200",
                  endTimeUnixNano: "1300",
                },
              ],
            },
          ],
        },
      ],
    };
    const rows = waterfallLayout(trace).rows;
    expect(rows.map((r) => r.name).sort()).toEqual(["a", "b", "orphan"]);
    expect(rows.find((r) => r.name === "orphan")).toMatchObject({ depth: 0, orphan: true });
    expect(rows.find((r) => r.name === "a")?.kind).toBe("SERVER");
    expect(traceSpans(trace)[0].service).toBe("unknown service");
  });

  it("has no rows for a trace without spans", () => {
    expect(waterfallLayout({ batches: [] })).toEqual({ rows: [], durationNs: 0, services: [] });
    expect(waterfallLayout({})).toEqual({ rows: [], durationNs: 0, services: [] });
  });
});
