// ECharts, the UI's one chart library, with only what the UI draws (bars; the tuning's trade-off
// as points and a line; the history's lines, bands and marked lines; the results' lines over
// time, percentile and span rate, the percentile plot's zoom; their axes, legend, tooltip and
// the generated aria description), rendered as SVG: a tree-shaken build, not the whole library.

import {
  BarChart,
  type BarSeriesOption,
  LineChart,
  type LineSeriesOption,
  ScatterChart,
  type ScatterSeriesOption,
} from "echarts/charts";
import {
  AriaComponent,
  type AriaComponentOption,
  type DataZoomComponentOption,
  DataZoomInsideComponent,
  GridComponent,
  type GridComponentOption,
  LegendComponent,
  type LegendComponentOption,
  MarkLineComponent,
  type MarkLineComponentOption,
  TooltipComponent,
  type TooltipComponentOption,
} from "echarts/components";
import * as echarts from "echarts/core";
import { SVGRenderer } from "echarts/renderers";

echarts.use([
  BarChart,
  LineChart,
  ScatterChart,
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  TooltipComponent,
  AriaComponent,
  DataZoomInsideComponent,
  SVGRenderer,
]);

export type EChartOption = echarts.ComposeOption<
  | BarSeriesOption
  | LineSeriesOption
  | ScatterSeriesOption
  | GridComponentOption
  | LegendComponentOption
  | MarkLineComponentOption
  | TooltipComponentOption
  | AriaComponentOption
  | DataZoomComponentOption
>;

export { echarts };
