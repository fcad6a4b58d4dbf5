import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  COST_COMPONENTS,
  describeFigure,
  formatGbPerDay,
  formatSignedUsd,
  formatUsd,
  inOrder,
} from "../../components/results/costFigures";
import {
  COST_DEFAULTS,
  costParamsFrom,
  costQuery,
  withCostParam,
  withoutCostParams,
} from "../../components/results/costInputs";
import { batchCost, costReport, figure, noneCost } from "../../test/fixtures";
import { costBarLabel, costBars, costChartOption } from "./costChart";

describe("cost figures", () => {
  it("writes money to the cent, small amounts to two significant digits, with a real minus", () => {
    expect(formatUsd(1234.567)).toBe("$1,234.57");
    expect(formatUsd(0.5)).toBe("$0.50");
    expect(formatUsd(0.01234)).toBe("$0.012");
    expect(formatUsd(0)).toBe("$0.00");
    expect(formatUsd(-2.5)).toBe("\u2212$2.50");
    expect(formatSignedUsd(2.5)).toBe("+$2.50");
    expect(formatSignedUsd(-0.004)).toBe("\u2212$0.0040");
    expect(formatSignedUsd(0)).toBe("$0.00");
    expect(formatGbPerDay(12.528)).toBe("12.5 GB/day");
    expect(formatGbPerDay(0)).toBe("0 GB/day");
  });

  it("describes a figure with its interval, the unit once; unknown is never 0", () => {
    expect(describeFigure(figure(0.002406, 0.00239, 0.00242), "cores")).toEqual({
      known: true,
      value: "2.41 millicores",
      interval: "95% interval 2.39 to 2.42 millicores",
      note: null,
    });
    expect(describeFigure(figure(-0.001, -0.002, 0.0005), "signedCores").interval).toBe(
      "95% interval \u22122.00 to +0.500 millicores",
    );
    expect(
      describeFigure(
        figure(12, null, null, { rounds: 1, note: "an interval needs at least 2 rounds" }),
        "usd",
      ),
    ).toEqual({
      known: true,
      value: "$12.00",
      interval: null,
      note: "an interval needs at least 2 rounds",
    });
    const unknown = describeFigure(
      figure(null, null, null, { note: "no round measured it" }),
      "usd",
    );
    expect(unknown.value).toBe("unknown");
    expect(unknown.known).toBe(false);
  });

  it("orders the configurations as the spec does", () => {
    const report = costReport({ configurations: [batchCost(), noneCost()] });
    expect(inOrder(report, ["none", "batch-default"]).map((c) => c.configuration)).toEqual([
      "none",
      "batch-default",
    ]);
  });
});

describe("cost chart", () => {
  it("stacks each configuration's $/month by component, an unknown one left out", () => {
    const batch = batchCost();
    batch.components[2] = { ...batch.components[2], usd_per_month: figure(null) };
    batch.usd_per_month = figure(null);
    const bars = costBars([noneCost(), batch]);
    expect(bars[1].usd).toEqual([0.1656, 0.08853, null, 189.19, 38.16, 0.1104]);
    expect(costBarLabel(bars[0])).toBe("none (baseline)\n$0.00/month");
    expect(costBarLabel(bars[1])).toBe("batch-default\ntotal unknown");
    const option = costChartOption(bars);
    const series = option.series as { name: string; stack: string; data: unknown[] }[];
    expect(series.map((s) => s.name)).toEqual(COST_COMPONENTS.map((c) => c.label));
    expect(new Set(series.map((s) => s.stack))).toEqual(new Set(["usd"]));
    expect(series[2].data).toEqual([0, null]);
  });
});

describe("cost inputs in the URL", () => {
  it("reads the known parameters, sets one, and resets them all, leaving others", () => {
    const search = new URLSearchParams("requests_per_s=2500&foo=1&retention_days=&tab=x");
    expect(costParamsFrom(search)).toEqual({ requests_per_s: "2500" });
    const edited = withCostParam(search, "retention_days", " 7 ");
    expect(edited.get("retention_days")).toBe("7");
    expect(withCostParam(edited, "retention_days", "").has("retention_days")).toBe(false);
    expect(withoutCostParams(edited).toString()).toBe("foo=1&tab=x");
  });

  it("drops the variant when another pipeline experiment is chosen", () => {
    const search = new URLSearchParams("pipeline_experiment=a&pipeline_variant=batch");
    expect(withCostParam(search, "pipeline_experiment", "b").toString()).toBe(
      "pipeline_experiment=b",
    );
    expect(withCostParam(search, "pipeline_experiment", "a").get("pipeline_variant")).toBe("batch");
  });

  it("sends numbers as numbers, and anything else as typed for the API to name", () => {
    expect(
      costQuery({ requests_per_s: "2500", retention_days: "abc", pipeline_experiment: "123" }),
    ).toEqual({ requests_per_s: 2500, retention_days: "abc", pipeline_experiment: "123" });
  });
});

describe("cost inputs", () => {
  it("knows the API's defaults as openapi.json documents them", () => {
    // Vitest runs from frontend/, where openapi.json is generated.
    const openapi = JSON.parse(readFileSync(`${process.cwd()}/openapi.json`, "utf8"));
    const properties = openapi.components.schemas.CostInputs.properties as Record<
      string,
      { default: number }
    >;
    const documented = Object.fromEntries(
      Object.entries(properties).map(([key, schema]) => [key, schema.default]),
    );
    expect(COST_DEFAULTS).toEqual(documented);
  });
});
