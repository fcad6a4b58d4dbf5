/**
 * Stand-ins for the charts in component tests. ECharts and d3-flame-graph draw measured SVG,
 * which jsdom does not do; each chart's data is tested on its own. A stand-in
 * shows what its chart was given, as text and data attributes the tests read.
 *
 * One stand-in per chart, which every test file that mocks the chart uses:
 *
 *   vi.mock("./CostChart", () => import("../../test/chartStubs"));
 */
import type { EChartOption } from "../lib/charts/echarts";

/** ExportBarChart: its bars' configurations, in order. */
export function ExportBarChart({ bars }: { bars: { configuration: string }[] }) {
  return (
    <div data-testid="export-bars" data-bars={bars.length}>
      {bars.map((bar) => bar.configuration).join(",")}
    </div>
  );
}

/** CostChart: each bar's dollars per component (null where unknown). */
export function CostChart({ bars }: { bars: { usd: (number | null)[] }[] }) {
  return (
    <div
      data-testid="cost-chart"
      data-bars={bars.length}
      data-usd={JSON.stringify(bars.map((bar) => bar.usd))}
    />
  );
}

type Frame = { name: string; children: Frame[] };

/** FlameGraphChart: its label, then each frame's colour and hover text. */
export function FlameGraphChart({
  label,
  data,
  colorOf,
  labelOf,
}: {
  label: string;
  data?: Frame;
  colorOf?: (d: unknown) => string;
  labelOf?: (d: unknown, total: number) => string;
}) {
  const frames: { path: string; d: Frame }[] = [];
  const walk = (d: Frame, parent: string) => {
    const path = `${parent};${d.name}`;
    frames.push({ path, d });
    for (const child of d.children ?? []) walk(child, path);
  };
  if (data) walk(data, "");
  return (
    <div data-testid="flame-chart">
      {label}
      <ul>
        {frames.map(({ path, d }) => (
          <li key={path} data-color={colorOf?.(d)}>
            {labelOf?.(d, 0)}
          </li>
        ))}
      </ul>
    </div>
  );
}

type Series = {
  name?: string;
  data?: { name?: string }[];
  markLine?: { data: { name: string }[] };
};

/** EChart: each series' name and points' names, and the names of the lines marked on it. */
export function EChart({ option }: { option: EChartOption }) {
  const series = (option.series ?? []) as Series[];
  const marks = series.flatMap((s) => s.markLine?.data.map((mark) => mark.name) ?? []);
  return (
    <div
      data-testid="echart"
      data-series={JSON.stringify(
        series.map((s) => ({ name: s.name, points: (s.data ?? []).map((d) => d.name) })),
      )}
      data-marks={JSON.stringify(marks)}
    />
  );
}

/** The series an EChart stand-in was given: each one's name and its points (their names). */
export function drawnSeries(stub: HTMLElement): { name?: string; points: unknown[] }[] {
  return JSON.parse(stub.getAttribute("data-series") ?? "[]");
}
