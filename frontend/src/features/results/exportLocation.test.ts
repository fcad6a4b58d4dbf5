import { describe, expect, it } from "vitest";
import { diagnostics, flameGraph, stackSummary } from "../../test/fixtures";
import {
  barLabel,
  countFrames,
  EXPORT_CATEGORIES,
  exportBarOption,
  exportLocations,
  FRAME_COLORS,
  frameLabel,
  hasUnattributedExport,
  toFlameData,
  topFrames,
} from "./exportLocation";

describe("exportLocations (the stacked bar's data)", () => {
  it("gives a bar per configuration with samples, in spec order, as percents", () => {
    const { bars, missing } = exportLocations(diagnostics().where_export_runs, [
      "none",
      "batch-default",
    ]);
    expect(bars.map((b) => b.configuration)).toEqual(["none", "batch-default"]);
    expect(EXPORT_CATEGORIES.map((c) => c.key)).toEqual([
      "export_request_path",
      "export_background",
      "export_unattributed",
      "sdk_other",
      "application",
    ]);
    expect(bars[1].percents).toEqual([0, 25, 0, 25, 50]);
    expect(bars[1]).toMatchObject({ exportPercent: 25, exportCpuPerRequestUs: 120 });
    expect(missing).toEqual([]);
  });

  it("lists configurations without samples with the reasons, and notes once per sampler", () => {
    const runs = {
      b: stackSummary("b", { export_request_path: 0.651, application: 0.349 }),
      a: stackSummary("a", null),
      c: stackSummary("c", { application: 1 }, { problems: ["round 1: pprof timed out"] }),
    };
    const result = exportLocations(runs, ["a", "b"]);
    expect(result.bars.map((b) => b.configuration)).toEqual(["b", "c"]);
    expect(result.bars[0].percents[0]).toBe(65.1);
    expect(result.missing).toEqual([
      {
        configuration: "a",
        problems: ["stack sampling was off for this experiment (sample_stacks: false)"],
      },
    ]);
    expect(result.notes).toEqual([
      {
        sampler: "go-pprof",
        note: "goroutine labels tell request goroutines from the SDK's",
        configurations: ["b", "c"],
      },
    ]);
    expect(result.bars[1].problems).toEqual(["round 1: pprof timed out"]);
  });

  it("says 'cannot tell apart' when the sampler cannot", () => {
    const summary = stackSummary("simple", { export_unattributed: 0.13, application: 0.87 });
    if (summary.location) summary.location.distinguishable = false;
    const [bar] = exportLocations({ simple: summary }, ["simple"]).bars;
    expect(bar.distinguishable).toBe(false);
    expect(barLabel(bar)).toBe("simple\n(cannot tell apart)");
  });

  it("builds a 100 % stacked bar: one series per category, one category per configuration", () => {
    const { bars } = exportLocations(diagnostics().where_export_runs, ["none", "batch-default"]);
    const option = exportBarOption(bars);
    const series = option.series as { name: string; stack: string; data: number[] }[];
    expect(series.map((s) => s.name)).toEqual(EXPORT_CATEGORIES.map((c) => c.label));
    expect(new Set(series.map((s) => s.stack)).size).toBe(1);
    expect(series.map((s) => s.data[1])).toEqual([0, 25, 0, 25, 50]);
    expect((option.yAxis as { data: string[] }).data).toEqual(["none", "batch-default"]);
    expect((option.xAxis as { max: number }).max).toBe(100);
  });
});

describe("the flame graph's data", () => {
  const data = toFlameData(flameGraph().root);

  it("colours frames by what they count as, from their thread's role", () => {
    const [request, background, unattributed] = data.children;
    expect(data.category).toBe("root");
    expect(request.category).toBe("thread-request");
    expect(request.children[0].category).toBe("application");
    expect(request.children[0].children[0].category).toBe("export_request_path");
    expect(request.children[1].category).toBe("sdk_other");
    expect(background.category).toBe("thread-background");
    expect(background.children[0].category).toBe("export_background");
    expect(unattributed.category).toBe("thread-unattributed");
    expect(FRAME_COLORS.export_request_path).toBe(EXPORT_CATEGORIES[0].color);
    expect(countFrames(data)).toBe(8);
    expect(hasUnattributedExport(data)).toBe(false);
  });

  it("keeps names and values for d3-flame-graph", () => {
    expect(data).toMatchObject({ name: "batch-default", value: 100 });
    expect(data.children[0].children[0]).toMatchObject({
      name: "net/http.(*conn).serve",
      value: 50,
    });
  });

  it("calls export under an unattributed thread unattributed", () => {
    const root = toFlameData({
      name: "simple",
      value: 10,
      kind: null,
      children: [
        {
          name: "thread main",
          value: 10,
          kind: "unattributed",
          children: [{ name: "send", value: 4, kind: "export", children: [] }],
        },
      ],
    });
    expect(root.children[0].children[0].category).toBe("export_unattributed");
    expect(hasUnattributedExport(root)).toBe(true);
  });

  it("takes a frame's own side when the backend gives it (Node: the stack says)", () => {
    const root = toFlameData({
      name: "simple",
      value: 10,
      kind: null,
      children: [
        {
          name: "thread main",
          value: 10,
          kind: "unattributed",
          where: "unattributed",
          children: [
            {
              name: "parserOnIncoming node:_http_server",
              value: 6,
              kind: "application",
              where: "request",
              children: [
                { name: "send", value: 4, kind: "export", where: "request", children: [] },
              ],
            },
          ],
        },
      ],
    });
    expect(root.children[0].children[0].children[0].category).toBe("export_request_path");
    expect(hasUnattributedExport(root)).toBe(false);
  });

  it("labels a frame with what it counts as and its share", () => {
    const exportFrame = data.children[1].children[0];
    expect(frameLabel(exportFrame, 100)).toBe(
      "otlptrace.(*client).UploadTraces · export in the background · 30 samples (30.0 %)",
    );
    expect(frameLabel(data.children[0], 100)).toBe(
      "goroutine request · request thread · 60 samples (60.0 %)",
    );
  });

  it("lists the hottest functions by self samples", () => {
    // Ties in name order.
    expect(topFrames(data, 3)).toEqual([
      { name: "net/http.(*conn).serve", category: "application", selfSamples: 30, percent: 30 },
      {
        name: "otlptrace.(*client).UploadTraces",
        category: "export_background",
        selfSamples: 30,
        percent: 30,
      },
      {
        name: "otlptrace.(*client).UploadTraces",
        category: "export_request_path",
        selfSamples: 20,
        percent: 20,
      },
    ]);
  });
});
