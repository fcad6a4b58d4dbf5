import { ChartFigure } from "../../lib/charts/ChartFigure";
import { formatRss, plotted, rssRange, type TradeoffPoint, tradeoffOption } from "./tradeoff";

/** The trade-off as a chart (ECharts): its figures are in TradeoffTable, right below it. */
export function TradeoffChart({ points }: { points: TradeoffPoint[] }) {
  const shown = plotted(points);
  const missing = points.filter((p) => !shown.includes(p)).map((p) => p.outcome.name);
  const range = rssRange(points);
  const memory = range
    ? `peak RSS, ${formatRss(range[0])} to ${formatRss(range[1])}`
    : "peak RSS, unknown for every point";
  return (
    <ChartFigure
      data={points}
      option={tradeoffOption}
      height={360}
      label="Trade-off: p99 overhead against spans kept, one point per candidate setting, the Pareto front marked"
      testId="tradeoff-chart"
      rows={shown.length}
    >
      Each point is a candidate at the last rung it reached: its p99 overhead against no SDK (x) and
      the share of its spans that reached the store (y). Filled points joined by the line are the
      Pareto front (no other setting has both less overhead and more spans kept); hollow points are
      off it; the diamond is the recommended setting. Point size is memory ({memory}; a point whose
      memory is unknown is drawn smallest).
      {missing.length > 0 && ` Not plotted, their overhead unknown: ${missing.join(", ")}.`} The
      table below has every figure.
    </ChartFigure>
  );
}
