// Where the added cost went: the differential flame graph's data (GET …/stacks/{c}/diff) and
// its colours. A frame's width is the candidate's cost per request; its colour is how much that
// cost changed against the other side: red costs more, blue costs less, intensity by |delta|
// relative to the largest change of any frame below the root.

import type { FlameDiff, FlameDiffNode } from "../../api/types";
import { formatMicros, formatNumber } from "../../lib/format";

export interface DiffDatum {
  name: string;
  /** The width: the candidate's cost (µs per request, or % of samples). */
  value: number;
  baseline: number;
  candidate: number;
  /** candidate − baseline. */
  delta: number;
  /** |delta| over the largest |delta| below the root, 0..1 (the colour's intensity). */
  intensity: number;
  children: DiffDatum[];
}

export type DiffUnit = FlameDiff["unit"];

export const DIFF_COLORS = { more: "#d62728", less: "#1f77b4", same: "#eeeeee" } as const;

function channels(hex: string): [number, number, number] {
  const value = Number.parseInt(hex.slice(1), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

function mix(from: string, to: string, amount: number): string {
  const [a, b] = [channels(from), channels(to)];
  const parts = a.map((channel, i) => Math.round(channel + (b[i] - channel) * amount));
  return `#${parts.map((part) => part.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * A frame's fill from its change: neutral grey when unchanged, towards red when it costs more,
 * towards blue when it costs less; `intensity` (0..1, clamped) is |delta| over the largest.
 */
export function diffColor(delta: number, intensity: number): string {
  const amount = Math.min(1, Math.max(0, Number.isFinite(intensity) ? intensity : 0));
  if (delta === 0 || amount === 0) return DIFF_COLORS.same;
  return mix(DIFF_COLORS.same, delta > 0 ? DIFF_COLORS.more : DIFF_COLORS.less, amount);
}

/** The largest |delta| of any frame below the root (the root's is the whole change). */
export function largestChange(root: FlameDiffNode): number {
  const below = (node: FlameDiffNode): number =>
    Math.max(
      0,
      ...(node.children ?? []).map((child) => Math.max(Math.abs(child.delta), below(child))),
    );
  return below(root);
}

/** The API's tree for d3-flame-graph, each frame with its colour's intensity. */
export function toDiffData(root: FlameDiffNode): DiffDatum {
  const largest = largestChange(root);
  const walk = (node: FlameDiffNode): DiffDatum => ({
    name: node.name,
    value: node.value,
    baseline: node.baseline,
    candidate: node.candidate,
    delta: node.delta,
    intensity: largest > 0 ? Math.min(1, Math.abs(node.delta) / largest) : 0,
    children: (node.children ?? []).map(walk),
  });
  return walk(root);
}

/** A cost in the diff's unit: "12.3 µs" per request, or "4.5 %" of the samples. */
export function formatCost(value: number, unit: DiffUnit): string {
  return unit === "us_per_request" ? formatMicros(value) : `${formatNumber(value, 1)} %`;
}

/** A change in the diff's unit, signed: "+12.3 µs", "−4.5 pp" (percentage points). */
export function formatDelta(delta: number, unit: DiffUnit): string {
  const sign = delta > 0 ? "+" : delta < 0 ? "−" : "";
  const body =
    unit === "us_per_request"
      ? formatMicros(Math.abs(delta))
      : `${formatNumber(Math.abs(delta), 1)} pp`;
  return `${sign}${body}`;
}

/** A frame's hover text: "export · 0 µs → 100 µs per request (+100 µs)". */
export function diffFrameLabel(datum: DiffDatum, unit: DiffUnit): string {
  const per = unit === "us_per_request" ? " per request" : " of samples";
  return `${datum.name} · ${formatCost(datum.baseline, unit)} → ${formatCost(datum.candidate, unit)}${per} (${formatDelta(datum.delta, unit)})`;
}
