import { useMemo } from "react";
import { EChart } from "../../lib/charts/EChart";
import { type ExportBar, exportBarHeight, exportBarOption } from "./exportLocation";

/** A 100 % stacked bar per configuration: where its CPU samples went. */
export function ExportBarChart({ bars }: { bars: ExportBar[] }) {
  const option = useMemo(() => exportBarOption(bars), [bars]);
  return (
    <figure
      className="chart-figure"
      aria-label="Where each configuration's CPU samples went"
      data-testid="export-bars"
      data-bars={bars.length}
    >
      <EChart option={option} height={exportBarHeight(bars.length)} />
      <figcaption className="muted small">
        Share of the service's CPU samples in the measured phase, all rounds merged. Hover a bar for
        the exact shares; the table below has the same numbers.
      </figcaption>
    </figure>
  );
}
