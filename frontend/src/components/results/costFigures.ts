// The cost report's figures for people: money, cores and GB/day with their 95% intervals, the
// table's rows, and each configuration in spec order. An unknown figure (estimate null) reads
// "unknown", never 0.

import type {
  ConfigurationCost,
  CostComponent,
  CostReport,
  Figure,
  SignalCost,
} from "../../api/types";
import { formatBytes, formatCores, formatSignedInUnit, significant } from "../../lib/format";

export const UNKNOWN = "unknown";
const MINUS = "\u2212";

/** Dollars: $1,234.57 and $0.50 to the cent, smaller amounts to two significant digits ($0.012). */
export function formatUsd(value: number): string {
  const abs = Math.abs(value);
  const body =
    abs === 0 || abs >= 0.995
      ? abs.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })
      : significant(abs, 2);
  return `${value < 0 && Number(body.replace(/,/g, "")) !== 0 ? MINUS : ""}$${body}`;
}

/** A difference in dollars, signed: +$1.23, −$0.45, $0.00. */
export function formatSignedUsd(value: number): string {
  const text = formatUsd(value);
  if (text.startsWith(MINUS) || /^\$0(\.0+)?$/.test(text)) return text;
  return `+${text}`;
}

/** A volume per day: 12.5 GB/day, 0.000864 GB/day. */
export function formatGbPerDay(value: number): string {
  return `${value === 0 ? "0" : significant(value)} GB/day`;
}

/** Extra cores over the baseline, signed: +4.50 millicores, −1.20 millicores. */
export function formatSignedCores(value: number): string {
  return formatSignedInUnit(value, "cores");
}

export const FORMATS = {
  usd: formatUsd,
  signedUsd: formatSignedUsd,
  cores: (value: number) => formatCores(value),
  signedCores: formatSignedCores,
  gbPerDay: formatGbPerDay,
  bytes: (value: number) => formatBytes(value),
} as const;

export type FigureFormat = keyof typeof FORMATS;

export interface FigureText {
  known: boolean;
  /** The estimate, or "unknown". */
  value: string;
  /** "95% interval $1.02 to $1.20"; null without an interval (unknown, or a single round). */
  interval: string | null;
  /** The API's note: rounds where it was unknown, or why there is no interval. */
  note: string | null;
}

/** "2.39 to 2.42 millicores": the unit once when both ends share it. */
export function joinRange(from: string, to: string): string {
  const unitOf = (text: string) => (text.includes(" ") ? text.slice(text.indexOf(" ")) : "");
  const unit = unitOf(from);
  if (unit && unit === unitOf(to)) return `${from.slice(0, -unit.length)} to ${to}`;
  return `${from} to ${to}`;
}

/** A figure as text in `format`; an unknown estimate is "unknown", never 0. */
export function describeFigure(figure: Figure, format: FigureFormat): FigureText {
  const write = FORMATS[format];
  const { estimate, low, high } = figure;
  const known = estimate != null && Number.isFinite(estimate);
  const interval =
    known && low != null && high != null
      ? `95% interval ${joinRange(write(Math.min(low, high)), write(Math.max(low, high)))}`
      : null;
  return {
    known,
    value: known ? write(estimate) : UNKNOWN,
    interval,
    note: figure.note ?? null,
  };
}

/** The report's configurations in spec order (any the spec does not list after them). */
export function inOrder(report: CostReport, order: readonly string[]): ConfigurationCost[] {
  const rank = (name: string) => {
    const index = order.indexOf(name);
    return index < 0 ? order.length : index;
  };
  return [...report.configurations].sort((a, b) => rank(a.configuration) - rank(b.configuration));
}

/** The components in the order the chart stacks them and the table lists them, with colours. */
export const COST_COMPONENTS: {
  key: CostComponent;
  label: string;
  color: string;
  description: string;
}[] = [
  {
    key: "service_cores",
    label: "Service cores",
    color: "#d55e00",
    description: "the service's CPU beyond the baseline's, at the rate, priced per vCPU-hour",
  },
  {
    key: "collector_cores",
    label: "Collector cores",
    color: "#e69f00",
    description: "the Collector's CPU for the spans sent at the rate, priced per vCPU-hour",
  },
  {
    key: "network",
    label: "Network",
    color: "#56b4e9",
    description: "every signal's OTLP bytes to the Collector, priced per GB of egress",
  },
  {
    key: "traces_store",
    label: "Trace store",
    color: "#0072b2",
    description: "what the Collector hands the trace store: ingest per GB, storage per GB-month",
  },
  {
    key: "logs_store",
    label: "Log store",
    color: "#009e73",
    description: "what the Collector hands the log store: ingest per GB, storage per GB-month",
  },
  {
    key: "metrics_store",
    label: "Metrics store",
    color: "#cc79a7",
    description: "what the Collector hands the metrics store: ingest per GB, storage per GB-month",
  },
];

const UNKNOWN_FIGURE: Figure = { estimate: null, rounds: 0, note: "not in the report" };

export function componentOf(configuration: ConfigurationCost, key: CostComponent) {
  return configuration.components.find((c) => c.component === key);
}

function signalOf(configuration: ConfigurationCost, signal: SignalCost["signal"]) {
  return configuration.signals.find((s) => s.signal === signal);
}

export interface CostRow {
  key: string;
  label: string;
  description: string;
  format: FigureFormat;
  figure: (configuration: ConfigurationCost) => Figure;
  /** The baseline's own cell says "baseline" (its difference from itself is no figure). */
  notForBaseline?: boolean;
}

export interface CostRowGroup {
  title: string;
  rows: CostRow[];
}

const SIGNAL_LABELS = { traces: "Traces", logs: "Logs", metrics: "Metrics" } as const;
// What the Collector's receiver counts for each signal, and what each store counts.
const ITEM_NAMES = { traces: "span", logs: "log record", metrics: "metric point" } as const;
const STORED_ITEM_NAMES = { traces: "span", logs: "line", metrics: "sample" } as const;

type Signal = SignalCost["signal"];
const SIGNALS: readonly Signal[] = ["traces", "logs", "metrics"];

/** A row of one signal's figure (its key is `<signal>_<figure>`, the API's field name). */
function signalRow(
  signal: Signal,
  figure: Exclude<keyof SignalCost, "signal">,
  format: FigureFormat,
  text: { label: string; description: string },
): CostRow {
  return {
    key: `${signal}_${figure}`,
    ...text,
    format,
    figure: (c) => signalOf(c, signal)?.[figure] ?? UNKNOWN_FIGURE,
  };
}

/** The table's rows: cores, GB/day per signal, $/month per component, the total and vs baseline. */
export const COST_ROW_GROUPS: CostRowGroup[] = [
  {
    title: "Cores",
    rows: [
      {
        key: "service_cores",
        label: "Service, beyond the baseline",
        description: "extra service CPU at the rate: CPU per request minus the baseline's",
        format: "signedCores",
        figure: (c) => componentOf(c, "service_cores")?.quantity ?? UNKNOWN_FIGURE,
      },
      {
        key: "collector_cores",
        label: "Collector",
        description: "spans per request at the rate times the Collector's cores per span/s",
        format: "cores",
        figure: (c) => componentOf(c, "collector_cores")?.quantity ?? UNKNOWN_FIGURE,
      },
    ],
  },
  {
    title: "Bytes per request and per item",
    rows: SIGNALS.flatMap((signal) => [
      signalRow(signal, "bytes_per_request", "bytes", {
        label: `${SIGNAL_LABELS[signal]} per request`,
        description: `OTLP bytes of ${signal} the service sent the Collector per request`,
      }),
      signalRow(signal, "bytes_per_item", "bytes", {
        label: `${SIGNAL_LABELS[signal]} per ${ITEM_NAMES[signal]}, sent`,
        description: `OTLP bytes sent per ${ITEM_NAMES[signal]} the Collector's receiver accepted`,
      }),
      signalRow(signal, "store_bytes_per_item", "bytes", {
        label: `${SIGNAL_LABELS[signal]} per ${STORED_ITEM_NAMES[signal]}, stored`,
        description: `bytes the store ingested per ${STORED_ITEM_NAMES[signal]} it counted`,
      }),
    ]),
  },
  {
    title: "GB/day sent to the Collector",
    rows: SIGNALS.map((signal) =>
      signalRow(signal, "gb_per_day", "gbPerDay", {
        label: SIGNAL_LABELS[signal],
        description: `OTLP bytes of ${signal} per request at the Collector's receiver, at the rate`,
      }),
    ),
  },
  {
    title: "GB/day into each store",
    rows: SIGNALS.map((signal) =>
      signalRow(signal, "store_gb_per_day", "gbPerDay", {
        label: SIGNAL_LABELS[signal],
        description: `bytes of ${signal} the store counted as ingested (where it counts bytes; else what the Collector's exporter handed it), at the rate`,
      }),
    ),
  },
  {
    title: "$/month",
    rows: [
      ...COST_COMPONENTS.map((component) => ({
        key: `${component.key}_usd`,
        label: component.label,
        description: component.description,
        format: "usd" as const,
        figure: (c: ConfigurationCost) =>
          componentOf(c, component.key)?.usd_per_month ?? UNKNOWN_FIGURE,
      })),
      {
        key: "usd_per_month",
        label: "Total",
        description: "every component's $/month, summed round by round",
        format: "usd",
        figure: (c) => c.usd_per_month,
      },
      {
        key: "usd_per_month_vs_baseline",
        label: "Against the baseline",
        description: "this configuration's $/month minus the baseline's, paired round by round",
        format: "signedUsd",
        figure: (c) => c.usd_per_month_vs_baseline,
        notForBaseline: true,
      },
    ],
  },
];

/** Whether any configuration has a $/month figure for any component: a chart to draw. */
export function hasKnownMoney(configurations: ConfigurationCost[]): boolean {
  return configurations.some((c) =>
    c.components.some((part) => part.usd_per_month.estimate != null),
  );
}
