import { ChartFigure } from "../../lib/charts/ChartFigure";
import { type CostBar, costChartHeight, costChartOption } from "./costChart";

/** A stacked bar per configuration: its $/month by component. */
export function CostChart({ bars }: { bars: CostBar[] }) {
  return (
    <ChartFigure
      data={bars}
      option={costChartOption}
      height={costChartHeight(bars.length)}
      label="Each configuration's $/month by component"
      testId="cost-chart"
      rows={bars.length}
    >
      Mean $/month over the rounds at the inputs above. A component whose cost is unknown is left
      out of its bar; the table below has every figure with its 95% interval.
    </ChartFigure>
  );
}
