import { ChartFigure } from "../../lib/charts/ChartFigure";
import { type ExportBar, exportBarHeight, exportBarOption } from "./exportLocation";

/** A 100 % stacked bar per configuration: where its CPU samples went. */
export function ExportBarChart({ bars }: { bars: ExportBar[] }) {
  return (
    <ChartFigure
      data={bars}
      option={exportBarOption}
      height={exportBarHeight(bars.length)}
      label="Where each configuration's CPU samples went"
      testId="export-bars"
      rows={bars.length}
    >
      Share of the service's CPU samples in the measured phase, all rounds merged. Hover a bar for
      the exact shares; the table below has the same numbers.
    </ChartFigure>
  );
}
