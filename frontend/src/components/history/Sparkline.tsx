// A trend at a glance: a configuration's recent estimates as a small line (SVG), the last known
// point dotted. An unknown value (null) breaks the line rather than reading as 0.

import "./sparkline.css";

const WIDTH = 96;
const HEIGHT = 24;
const PAD = 2;

const known = (value: number | null | undefined): value is number =>
  typeof value === "number" && Number.isFinite(value);

export interface SparklineShape {
  /** "M x y L x y …", a new "M" after each gap. */
  path: string;
  /** The last known point, dotted. */
  last: [number, number];
}

/** The line of `values` in a `width` × `height` box; null when no value is known. */
export function sparklineShape(
  values: readonly (number | null | undefined)[],
  width = WIDTH,
  height = HEIGHT,
): SparklineShape | null {
  const finite = values.filter(known);
  if (finite.length === 0) return null;
  const min = Math.min(...finite);
  const max = Math.max(...finite);
  const x = (i: number) =>
    values.length === 1 ? width / 2 : PAD + (i * (width - 2 * PAD)) / (values.length - 1);
  const y = (v: number) =>
    max === min ? height / 2 : height - PAD - ((v - min) * (height - 2 * PAD)) / (max - min);
  const parts: string[] = [];
  let last: [number, number] = [0, 0];
  let drawing = false;
  values.forEach((value, i) => {
    if (!known(value)) {
      drawing = false;
      return;
    }
    last = [Number(x(i).toFixed(1)), Number(y(value).toFixed(1))];
    parts.push(`${drawing ? "L" : "M"}${last[0]} ${last[1]}`);
    drawing = true;
  });
  return { path: parts.join(" "), last };
}

/** The line, named for screen readers by `label`; a note when no value is known. */
export function Sparkline({
  values,
  label,
}: {
  values: readonly (number | null | undefined)[];
  label: string;
}) {
  const shape = sparklineShape(values);
  if (!shape) return <span className="muted small">no trend yet</span>;
  return (
    <svg
      className="sparkline"
      width={WIDTH}
      height={HEIGHT}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={label}
    >
      <path d={shape.path} fill="none" stroke="currentColor" strokeWidth={1.5} />
      <circle cx={shape.last[0]} cy={shape.last[1]} r={2} fill="currentColor" />
    </svg>
  );
}
