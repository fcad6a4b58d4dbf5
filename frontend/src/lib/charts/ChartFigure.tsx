import { type ReactNode, useMemo } from "react";
import { EChart } from "./EChart";
import type { EChartOption } from "./echarts";
import "./charts.css";

/** An ECharts chart as a figure: its accessible name, a test id and a caption under it. */
export function ChartFigure<T>({
  data,
  option,
  height,
  label,
  testId,
  rows,
  children,
}: {
  data: T;
  option: (data: T) => EChartOption;
  height: number;
  label: string;
  testId: string;
  rows: number;
  children: ReactNode;
}) {
  const built = useMemo(() => option(data), [option, data]);
  return (
    <figure className="chart-figure" aria-label={label} data-testid={testId} data-bars={rows}>
      <EChart option={built} height={height} />
      <figcaption className="muted small">{children}</figcaption>
    </figure>
  );
}
