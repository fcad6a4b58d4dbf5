// uPlot draws "aligned" data: one shared x array and one y array per series, with null where a
// series has no point. Series with their own x values are joined here.

export interface XYSeries {
  label: string;
  x: number[];
  y: number[];
}

export type AlignedData = [number[], ...(number | null)[][]];

/** Joins series on the union of their x values (sorted); a missing point is null. */
export function alignSeries(series: readonly XYSeries[]): AlignedData {
  const xs = [...new Set(series.flatMap((s) => s.x))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const ys = series.map((s) => {
    const column: (number | null)[] = new Array(xs.length).fill(null);
    s.x.forEach((x, i) => {
      column[index.get(x) as number] = s.y[i];
    });
    return column;
  });
  return [xs, ...ys];
}
