// The recommendation's pieces as text: the setting to apply (processor + OTEL_* variables)
// and each rule's evidence, whose values are numbers, shares, overhead intervals or words.

import { intervalSummary, isInterval } from "../../components/results/overhead";
import { formatNumber, formatPercent, MISSING } from "../../lib/format";

/** Environment variables as lines to paste: "OTEL_BSP_MAX_QUEUE_SIZE=8192". */
export function envLines(env: Record<string, string> | null | undefined): string[] {
  return Object.entries(env ?? {}).map(([key, value]) => `${key}=${value}`);
}

/** A rule's setting: the processor (if it says one) and the variables. */
export function ruleSetting(setting: Record<string, string>): {
  processor: string | null;
  env: string[];
} {
  const { processor, ...env } = setting;
  return { processor: processor ?? null, env: envLines(env) };
}

const ACRONYMS: Record<string, string> = { cpu: "CPU", rss: "RSS", sdk: "SDK", bsp: "BSP" };

/**
 * "export_on_request_path_share" → "Export on request path share"; the unit suffixes the
 * value carries (_pct, _s, _per_s) are left out of the label.
 */
export function humanize(key: string): string {
  const words = key
    .replace(/_(pct|per_s|s)$/, "")
    .split("_")
    .filter(Boolean)
    .map((word) => ACRONYMS[word] ?? word);
  const text = words.join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** One evidence value as text, by what it is (and, for numbers, by its key's name). */
export function evidenceValue(key: string, value: unknown): string {
  if (value == null) return "not measured";
  if (isInterval(value)) return intervalSummary(value);
  if (typeof value === "number") {
    if (key.endsWith("_share")) return `${formatNumber(value * 100, 1)} %`;
    if (key.endsWith("_pct")) return formatPercent(value).replace(/^\+/, "");
    if (key.endsWith("_per_s")) return `${formatNumber(value, 2)} /s`;
    if (key.endsWith("_s")) return `${formatNumber(value, 2)} s`;
    return formatNumber(value, 2);
  }
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value);
  } catch {
    return MISSING;
  }
}

/** Evidence as label/value pairs in the backend's order. */
export function evidenceRows(
  evidence: Record<string, unknown>,
): { label: string; value: string }[] {
  return Object.entries(evidence).map(([key, value]) => ({
    label: humanize(key),
    value: evidenceValue(key, value),
  }));
}
