// Where export runs: the stacked bar's data from Diagnostics.where_export_runs, and the flame
// graph's data from a FlameGraph tree. Both use the same five categories and colours, so a
// frame's colour in the flame graph is the bar segment it counts towards.

import type { FlameNode, StackSummary } from "../../api/types";
import type { EChartOption } from "../../lib/charts/echarts";
import { stackedBarsOption } from "../../lib/charts/stackedBars";

export const EXPORT_CATEGORIES = [
  {
    key: "export_request_path",
    label: "Export on the request path",
    color: "#d55e00",
    description: "exporting while a request waits (SimpleSpanProcessor's synchronous export)",
  },
  {
    key: "export_background",
    label: "Export in the background",
    color: "#0072b2",
    description: "exporting on the SDK's own threads (BatchSpanProcessor's worker)",
  },
  {
    key: "export_unattributed",
    label: "Export, unattributed",
    color: "#cc79a7",
    description: "exporting where the sampler cannot tell request from background",
  },
  {
    key: "sdk_other",
    label: "Other SDK work",
    color: "#e69f00",
    description: "creating, recording and queueing spans",
  },
  {
    key: "application",
    label: "Application",
    color: "#8f9baa",
    description: "everything else the service does",
  },
] as const;

export type ExportCategory = (typeof EXPORT_CATEGORIES)[number]["key"];

export interface ExportBar {
  configuration: string;
  /** Percent of the service's CPU samples, in EXPORT_CATEGORIES order (sums to about 100). */
  percents: number[];
  samples: number;
  sampler: string;
  /** False when request-path and background export cannot be told apart (the sampler says why). */
  distinguishable: boolean;
  /** Export's share of all samples, percent. */
  exportPercent: number;
  /** Of the export samples, the percent on the request path; null without export samples. */
  exportOnRequestPathPercent: number | null;
  exportCpuPerRequestUs: number | null;
  problems: string[];
}

export interface ExportLocations {
  /** Configurations with stack samples, in spec order. */
  bars: ExportBar[];
  /** Configurations without any, with the reasons. */
  missing: { configuration: string; problems: string[] }[];
  /** Each sampler's note (how it tells request path from background), with who used it. */
  notes: { sampler: string; note: string; configurations: string[] }[];
}

const percent = (share: number) => Math.round(share * 1000) / 10;

/** The stacked bar's rows (spec order), configurations without samples, and the notes. */
export function exportLocations(
  whereExportRuns: Record<string, StackSummary>,
  order: readonly string[],
): ExportLocations {
  const names = [
    ...order.filter((name) => name in whereExportRuns),
    ...Object.keys(whereExportRuns).filter((name) => !order.includes(name)),
  ];
  const result: ExportLocations = { bars: [], missing: [], notes: [] };
  for (const name of names) {
    const summary = whereExportRuns[name];
    const location = summary.location;
    if (!location || location.samples <= 0) {
      result.missing.push({
        configuration: name,
        problems: summary.problems.length > 0 ? summary.problems : ["no stack samples"],
      });
      continue;
    }
    result.bars.push({
      configuration: name,
      percents: EXPORT_CATEGORIES.map(({ key }) => percent(location[key] ?? 0)),
      samples: location.samples,
      sampler: location.sampler,
      distinguishable: location.distinguishable,
      exportPercent: percent(location.export_share),
      exportOnRequestPathPercent:
        location.export_on_request_path_of_export == null
          ? null
          : percent(location.export_on_request_path_of_export),
      exportCpuPerRequestUs: summary.export_cpu_per_request_us,
      problems: summary.problems,
    });
    const note = result.notes.find(
      (n) => n.sampler === location.sampler && n.note === location.note,
    );
    if (note) note.configurations.push(name);
    else if (location.note)
      result.notes.push({ sampler: location.sampler, note: location.note, configurations: [name] });
  }
  return result;
}

/** The bar's axis label: the configuration, and "cannot tell apart" when that is so. */
export function barLabel(bar: ExportBar): string {
  return bar.distinguishable ? bar.configuration : `${bar.configuration}\n(cannot tell apart)`;
}

/** The chart's height: room for the legend and about 44 px per bar. */
export function exportBarHeight(bars: number): number {
  return 90 + Math.max(1, bars) * 44;
}

/** A horizontal 100 % stacked bar per configuration (ECharts), one series per category. */
export function exportBarOption(bars: readonly ExportBar[]): EChartOption {
  return stackedBarsOption({
    rows: bars.map(barLabel),
    parts: EXPORT_CATEGORIES.map((category, index) => ({
      label: category.label,
      color: category.color,
      values: bars.map((bar) => bar.percents[index]),
    })),
    stack: "samples",
    xAxis: { type: "value", min: 0, max: 100, axisLabel: { formatter: "{value} %" } },
    valueFormatter: (value) => `${value} %`,
    partLabel: {
      show: true,
      color: "#fff",
      formatter: ({ value }) => (Number(value) >= 8 ? `${Math.round(Number(value))} %` : ""),
    },
  });
}

// Flame graph -------------------------------------------------------------------------------

export type FrameCategory =
  | ExportCategory
  | "thread-request"
  | "thread-background"
  | "thread-unattributed"
  | "root"
  | "other";

export const FRAME_COLORS: Record<FrameCategory, string> = {
  ...(Object.fromEntries(EXPORT_CATEGORIES.map((c) => [c.key, c.color])) as Record<
    ExportCategory,
    string
  >),
  "thread-request": "#f6c9a8",
  "thread-background": "#a9cde8",
  "thread-unattributed": "#e6c3d8",
  root: "#d1d5db",
  other: "#c4c9d0",
};

/** What d3-flame-graph draws: name, total value, children, plus the category for the colour. */
export interface FlameDatum {
  name: string;
  value: number;
  kind: string | null;
  category: FrameCategory;
  children: FlameDatum[];
}

const THREAD_KINDS = ["request", "background", "unattributed"] as const;
type ThreadKind = (typeof THREAD_KINDS)[number];

function frameCategory(kind: string | null, thread: ThreadKind | null): FrameCategory {
  if (kind === "export") {
    if (thread === "request") return "export_request_path";
    if (thread === "background") return "export_background";
    return "export_unattributed";
  }
  if (kind === "sdk") return "sdk_other";
  if (kind === "application") return "application";
  return "other";
}

const asThreadKind = (value: string | null | undefined): ThreadKind | null =>
  (THREAD_KINDS as readonly string[]).includes(value ?? "") ? (value as ThreadKind) : null;

/**
 * The backend's tree for d3-flame-graph: thread-level nodes (kind request / background /
 * unattributed) set the context, and frames below are coloured by what they count as in the
 * stacked bar — an export frame on the request path is export on the request path. Each
 * node's `where` (when the backend gives it) overrides the thread's: in Node's one thread a
 * frame deeper down decides the side.
 */
export function toFlameData(root: FlameNode): FlameDatum {
  const walk = (node: FlameNode, thread: ThreadKind | null, depth: number): FlameDatum => {
    const kind = node.kind ?? null;
    const threadKind = asThreadKind(kind);
    const context = asThreadKind(node.where) ?? threadKind ?? thread;
    const category: FrameCategory =
      depth === 0 ? "root" : threadKind ? `thread-${threadKind}` : frameCategory(kind, context);
    return {
      name: node.name,
      value: node.value,
      kind,
      category,
      children: (node.children ?? []).map((child) => walk(child, context, depth + 1)),
    };
  };
  return walk(root, null, 0);
}

/** Frames in a tree, root included. */
export function countFrames(datum: FlameDatum): number {
  return 1 + datum.children.reduce((sum, child) => sum + countFrames(child), 0);
}

/** A frame's hover text: "name · export on the request path · 71 samples (65.1 %)". */
export function frameLabel(datum: FlameDatum, total: number): string {
  const category = datum.category === "root" ? null : categoryLabel(datum.category).toLowerCase();
  const share = total > 0 ? ` (${((datum.value / total) * 100).toFixed(1)} %)` : "";
  return [datum.name, category, `${datum.value.toLocaleString("en-US")} samples${share}`]
    .filter(Boolean)
    .join(" · ");
}

export interface TopFrame {
  name: string;
  category: FrameCategory;
  /** Samples with this function on top of the stack (self time), over the whole tree. */
  selfSamples: number;
  percent: number;
}

/**
 * The functions with the most self samples (value minus the children's), merged by name and
 * category: the flame graph's hottest frames as a table, readable without the chart.
 */
export function topFrames(root: FlameDatum, limit = 10): TopFrame[] {
  const totals = new Map<string, TopFrame>();
  const visit = (node: FlameDatum, depth: number) => {
    const self = node.value - node.children.reduce((sum, child) => sum + child.value, 0);
    if (depth > 0 && self > 0) {
      const key = `${node.category}\u0000${node.name}`;
      const entry = totals.get(key) ?? {
        name: node.name,
        category: node.category,
        selfSamples: 0,
        percent: 0,
      };
      entry.selfSamples += self;
      totals.set(key, entry);
    }
    for (const child of node.children) visit(child, depth + 1);
  };
  visit(root, 0);
  return [...totals.values()]
    .map((entry) => ({
      ...entry,
      percent: root.value > 0 ? Math.round((entry.selfSamples / root.value) * 1000) / 10 : 0,
    }))
    .sort((a, b) => b.selfSamples - a.selfSamples || a.name.localeCompare(b.name))
    .slice(0, limit);
}

/** A category's name for people: "export on the request path", "request thread". */
export function categoryLabel(category: FrameCategory): string {
  const known = EXPORT_CATEGORIES.find((c) => c.key === category);
  if (known) return known.label;
  if (category.startsWith("thread-")) return `${category.slice("thread-".length)} thread`;
  return category === "root" ? "all samples" : "other";
}

/**
 * Whether export frames sit under an unattributed thread: in the tree a frame's place (request
 * or background) is its thread's, so for single-threaded runtimes, whose sampler tells them
 * apart by frames further up the stack, the stacked bar is the one to read.
 */
export function hasUnattributedExport(root: FlameDatum): boolean {
  const visit = (node: FlameDatum): boolean =>
    node.category === "export_unattributed" || node.children.some(visit);
  return visit(root);
}
