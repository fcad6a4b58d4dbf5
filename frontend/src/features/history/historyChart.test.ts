import { describe, expect, it } from "vitest";
import { historyPoint, historySeries } from "../../test/historyFixtures";
import {
  bandData,
  changePointMarks,
  historyDescription,
  historyOption,
  pointLabel,
  pointTooltip,
} from "./historyChart";

type LineSeries = {
  name: string;
  data: unknown[];
  stack?: string;
  areaStyle?: unknown;
  markLine?: {
    data: { name: string; xAxis?: number; yAxis?: number; label: { formatter: string } }[];
  };
};

function seriesOf(option: ReturnType<typeof historyOption>): LineSeries[] {
  return option.series as unknown as LineSeries[];
}

describe("pointLabel", () => {
  it("is the commit's short sha, or the check's date when there is no commit", () => {
    expect(pointLabel(historyPoint(6))).toBe("06a1b2c");
    expect(pointLabel(historyPoint(2, { commit: null }))).toMatch(/2026/);
  });
});

describe("bandData", () => {
  it("stacks the interval's width on its lower edge, with gaps where it is unknown", () => {
    const band = bandData([
      historyPoint(0, { estimate: 4, low: -1, high: 5 }),
      historyPoint(1, { estimate: 4, low: null, high: null }),
      historyPoint(2, { estimate: null, low: 2, high: 3 }),
    ]);
    expect(band.low).toEqual([-1, null, 2]);
    expect(band.width).toEqual([6, null, 1]);
  });
});

describe("changePointMarks", () => {
  it("marks the first commit after the change with the shift and its interval", () => {
    const marks = changePointMarks(historySeries());
    expect(marks).toHaveLength(1);
    expect(marks[0].xAxis).toBe(6);
    expect(marks[0].label.formatter).toBe("+15% [+13%, +17%] from 06a1b2c");
  });

  it("drops a change point outside the series", () => {
    const series = historySeries("p99", {
      change_points: [
        {
          index: 40,
          check_id: "x",
          commit: null,
          before: 0,
          after: 1,
          shift: 1,
          low: 0.5,
          high: 1.5,
          size_pct: 1,
          material: true,
        },
      ],
    });
    expect(changePointMarks(series)).toEqual([]);
  });

  it("does not draw a change point too small to matter", () => {
    const base = historySeries("bytes_per_request");
    const small = { ...base.change_points[0], shift: 0.31, size_pct: 0.03, material: false };
    expect(changePointMarks({ ...base, change_points: [small] })).toEqual([]);
  });
});

describe("historyOption", () => {
  it("draws the estimate over its 95% band, commits on the x axis", () => {
    const option = historyOption(historySeries());
    const [low, width, estimate] = seriesOf(option);
    expect(low.stack).toBe("interval");
    expect(width.stack).toBe("interval");
    expect(width.areaStyle).toBeTruthy();
    expect(low.data[0]).toBeCloseTo(2.5);
    expect(width.data[0]).toBeCloseTo(3);
    expect((estimate.data[6] as { value: number }).value).toBeCloseTo(19);
    const xAxis = option.xAxis as { data: string[] };
    expect(xAxis.data).toHaveLength(12);
    expect(xAxis.data[6]).toBe("06a1b2c");
  });

  it("marks the change points and the budget as lines", () => {
    const marks = seriesOf(historyOption(historySeries()))[2].markLine?.data ?? [];
    expect(marks.map((mark) => mark.name)).toEqual(["change point", "budget"]);
    expect(marks[0].xAxis).toBe(6);
    expect(marks[1].yAxis).toBe(15);
    expect(marks[1].label.formatter).toBe("budget +15%");
  });

  it("draws no budget line when the series has none", () => {
    const marks = seriesOf(historyOption(historySeries("cpu_per_request_us")))[2].markLine?.data;
    expect(marks?.map((mark) => mark.name)).toEqual(["change point"]);
  });

  it("leaves an unknown estimate as a gap, never 0", () => {
    const series = historySeries("p99", {
      points: [historyPoint(0), historyPoint(1, { estimate: null, low: null, high: null })],
      change_points: [],
    });
    const estimate = seriesOf(historyOption(series))[2];
    expect((estimate.data[1] as { value: number | null }).value).toBeNull();
  });

  it("formats values in the series' unit", () => {
    const series = historySeries("usd_per_month");
    const yAxis = historyOption(series).yAxis as {
      axisLabel: { formatter: (v: number) => string };
    };
    expect(yAxis.axisLabel.formatter(12.5)).toBe("+$12.50");
  });

  it("labels a narrow axis with the digits that tell its ticks apart", () => {
    const points = [1117.1, 1117.3, 1117.6].map((estimate, i) =>
      historyPoint(i, { estimate, low: estimate - 0.1, high: estimate + 0.1 }),
    );
    const series = historySeries("bytes_per_request", { points, change_points: [] });
    const yAxis = historyOption(series).yAxis as {
      axisLabel: { formatter: (v: number) => string };
    };
    expect(yAxis.axisLabel.formatter(1117.2)).toBe("1,117.2 B");
    expect(yAxis.axisLabel.formatter(1117.4)).not.toBe(yAxis.axisLabel.formatter(1117.2));
  });
});

describe("the hover and the description", () => {
  it("names the commit, date, verdict and links to the check", () => {
    const html = pointTooltip(historyPoint(6, { pull_request: "42" }), "pct");
    expect(html).toContain("commit <code>06a1b2c</code>");
    expect(html).toContain("PR 42");
    expect(html).toContain("verdict fail");
    expect(html).toContain('href="/checks/check-06-0000-0000-0000-000000000000"');
    expect(html).toContain("+19% [+18%, +21%]");
  });

  it("escapes what came from CI", () => {
    const html = pointTooltip(historyPoint(1, { branch: "<script>" }), "pct");
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;");
  });

  it("says the change points and the budget in words", () => {
    const text = historyDescription(historySeries());
    expect(text).toContain("12 checks");
    expect(text).toContain("Change points: +15% [+13%, +17%] from 06a1b2c.");
    expect(text).toContain("Budget +15%.");
  });
});
