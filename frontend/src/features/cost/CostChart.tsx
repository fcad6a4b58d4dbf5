import { useMemo } from "react";
import { EChart } from "../../lib/charts/EChart";
import { type CostBar, costChartHeight, costChartOption } from "./costChart";

/** A stacked bar per configuration: its $/month by component. */
export function CostChart({ bars }: { bars: CostBar[] }) {
  const option = useMemo(() => costChartOption(bars), [bars]);
  return (
    <figure
      className="chart-figure"
      aria-label="Each configuration's $/month by component"
      data-testid="cost-chart"
      data-bars={bars.length}
    >
      <EChart option={option} height={costChartHeight(bars.length)} />
      <figcaption className="muted small">
        Mean $/month over the rounds at the inputs above. A component whose cost is unknown is left
        out of its bar; the table below has every figure with its 95% interval.
      </figcaption>
    </figure>
  );
}
