// Number, time and interval formatting shared by every page. Missing values render as "—".

export const MISSING = "—";
const MINUS = "\u2212";

function isNumber(value: number | null | undefined): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** Three significant digits, never in exponent notation: 1.04, 12.3, 123, 1234. */
export function significant(value: number, digits = 3): string {
  if (value === 0) return "0";
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  const decimals = Math.max(0, digits - 1 - magnitude);
  return value.toLocaleString("en-US", {
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
  });
}

/** A duration given in microseconds, in the unit that keeps it readable: 590 µs, 1.04 ms, 2.35 s. */
export function formatMicros(us: number | null | undefined): string {
  if (!isNumber(us)) return MISSING;
  const abs = Math.abs(us);
  if (abs < 1000) return `${significant(us)} µs`;
  if (abs < 1_000_000) return `${significant(us / 1000)} ms`;
  return `${significant(us / 1_000_000)} s`;
}

/** Requests per second: 8,292 req/s; 150 req/s; 12.5 req/s. */
export function formatRate(rps: number | null | undefined): string {
  if (!isNumber(rps)) return MISSING;
  const decimals = Math.abs(rps) >= 100 ? 0 : 1;
  return `${rps.toLocaleString("en-US", { maximumFractionDigits: decimals, minimumFractionDigits: decimals })} req/s`;
}

/** Spans per second: 1,144 spans/s; 12.5 spans/s. */
export function formatSpanRate(rate: number | null | undefined): string {
  return formatRate(rate).replace(" req/s", " spans/s");
}

/** CPU in cores, in millicores below one core: 7.80 millicores, 1.25 cores. */
export function formatCores(cores: number | null | undefined): string {
  if (!isNumber(cores)) return MISSING;
  if (cores === 0) return "0 cores";
  if (Math.abs(cores) >= 1) return `${significant(cores)} cores`;
  return `${significant(cores * 1000)} millicores`;
}

/** Bytes in binary units: 31.2 MiB. */
export function formatBytes(bytes: number | null | undefined): string {
  if (!isNumber(bytes)) return MISSING;
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value.toFixed(0) : significant(value)} ${units[unit]}`;
}

/** A plain count or ratio with up to `decimals` decimals: 1.12, 600, 12,345. */
export function formatNumber(value: number | null | undefined, decimals = 2): string {
  if (!isNumber(value)) return MISSING;
  return value.toLocaleString("en-US", { maximumFractionDigits: decimals });
}

/** A utilisation as a share of one core: 0.671 → 67.1 %. */
export function formatUtilization(share: number | null | undefined): string {
  if (!isNumber(share)) return MISSING;
  return `${significant(share * 100)} %`;
}

/** A signed percentage with a real minus sign: +12.3 %, −4.0 %, +834 %, 0.0 %. */
export function formatPercent(percent: number | null | undefined): string {
  if (!isNumber(percent)) return MISSING;
  const abs = Math.abs(percent);
  const decimals = abs < 10 ? 1 : 0;
  const body = abs.toLocaleString("en-US", {
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
  });
  if (Number(abs.toFixed(decimals)) === 0) return `${body} %`;
  return `${percent > 0 ? "+" : MINUS}${body} %`;
}

/** A signed percentage as the API writes a change: +4.1%, −97%, 0.0% (no space before %). */
export function formatChangePercent(percent: number | null | undefined): string {
  return formatPercent(percent).replace(" %", "%");
}

/** The units the diagnostics give values in (Change.unit, NoiseFloor.unit). */
export type MetricUnit = "us" | "req/s" | "bytes" | "cores" | "spans";

/** A value in its API unit at a readable scale: µs → ms → s, bytes → KiB/MiB, req/s. */
export function formatInUnit(value: number | null | undefined, unit: string): string {
  if (!isNumber(value)) return MISSING;
  if (unit === "us") return formatMicros(value);
  if (unit === "bytes") return formatBytes(value);
  if (unit === "req/s") return formatRate(value);
  if (unit === "cores") return formatCores(value);
  if (unit === "spans") return `${formatNumber(value, 0)} spans`;
  return `${formatNumber(value, 2)} ${unit}`.trim();
}

/** A signed change in its unit, with a real minus: +1.02 ms, −576 req/s, +3.1 MiB, 0 µs. */
export function formatSignedInUnit(value: number | null | undefined, unit: string): string {
  if (!isNumber(value)) return MISSING;
  const body = formatInUnit(Math.abs(value), unit);
  if (value === 0 || /^0(\.0+)? /.test(body)) return body;
  return `${value > 0 ? "+" : MINUS}${body}`;
}

/** A signed range in a unit, the unit once when both ends share it: "+0.95 to +1.09 ms". */
export function formatSignedRange(
  low: number | null | undefined,
  high: number | null | undefined,
  unit: string,
): string | null {
  if (!isNumber(low) || !isNumber(high)) return null;
  const [a, b] = low <= high ? [low, high] : [high, low];
  const from = formatSignedInUnit(a, unit);
  const to = formatSignedInUnit(b, unit);
  const unitOf = (text: string) => text.slice(text.indexOf(" ") + 1);
  if (from.includes(" ") && unitOf(from) === unitOf(to)) {
    return `${from.slice(0, from.indexOf(" "))} to ${to}`;
  }
  return `${from} to ${to}`;
}

/** A confidence interval of a percent difference: [+1.2 %, +5.0 %]. */
export function formatInterval(
  interval: readonly [number, number] | null | undefined,
  format: (value: number) => string = formatPercent,
): string {
  if (!interval || !isNumber(interval[0]) || !isNumber(interval[1])) return MISSING;
  const [low, high] = interval[0] <= interval[1] ? interval : [interval[1], interval[0]];
  return `[${format(low)}, ${format(high)}]`;
}

/** A wall-clock duration: 45 s, 1 min 12 s, 1 h 5 min. */
export function formatDuration(seconds: number | null | undefined): string {
  if (!isNumber(seconds)) return MISSING;
  const total = Math.max(0, Math.round(seconds));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const secs = total % 60;
  if (hours > 0) return minutes > 0 ? `${hours} h ${minutes} min` : `${hours} h`;
  if (minutes > 0) return secs > 0 ? `${minutes} min ${secs} s` : `${minutes} min`;
  return `${secs} s`;
}

/** The API's datetimes: naive ones are UTC (SQLite drops the offset). */
export function parseApiDate(value: string | null | undefined): Date | null {
  if (!value) return null;
  const hasZone = /(Z|[+-]\d\d:?\d\d)$/.test(value);
  const date = new Date(hasZone ? value : `${value}Z`);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** A date and time in the reader's locale and time zone, to the minute. */
export function formatDateTime(value: string | null | undefined, locale?: string): string {
  const date = parseApiDate(value);
  if (!date) return MISSING;
  return date.toLocaleString(locale, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
  });
}
