// A trace's waterfall from Tempo's OTLP JSON: spans in tree order (children by start time),
// each with its depth and where its bar starts and ends as a share of the trace's duration.
// Times are nanoseconds since the epoch as text, beyond a double's precision: they are
// subtracted as BigInt before becoming numbers.

import type { OtlpAttribute, OtlpResourceSpans, OtlpSpan, OtlpTrace } from "../../api/types";

export interface WaterfallRow {
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** SERVER, CLIENT, INTERNAL, PRODUCER, CONSUMER, or "" when not given. */
  kind: string;
  service: string;
  depth: number;
  /** Nanoseconds from the trace's first start. */
  startNs: number;
  durationNs: number;
  /** Bar position, percent of the trace's duration. */
  leftPercent: number;
  widthPercent: number;
  error: boolean;
  /** The parent is not in the trace (lost, or not sampled): shown as a root. */
  orphan: boolean;
}

export interface Waterfall {
  rows: WaterfallRow[];
  durationNs: number;
  services: string[];
}

const KINDS = ["", "INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"];

/** Tempo answers ids in base64 (OTLP JSON protobuf mapping) or hex; the UI shows hex. */
export function idToHex(id: string | undefined | null): string {
  if (!id) return "";
  if (/^[0-9a-f]+$/i.test(id) && (id.length === 16 || id.length === 32)) return id.toLowerCase();
  try {
    const bytes = atob(id);
    return [...bytes].map((c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("");
  } catch {
    return id;
  }
}

function kindName(kind: OtlpSpan["kind"]): string {
  if (typeof kind === "number") return KINDS[kind] ?? "";
  if (!kind) return "";
  return kind.replace(/^SPAN_KIND_/, "").replace("UNSPECIFIED", "");
}

function toBigInt(value: string | number | undefined): bigint | null {
  if (value == null || value === "") return null;
  try {
    return BigInt(typeof value === "number" ? Math.round(value) : value);
  } catch {
    return null;
  }
}

function attribute(attributes: OtlpAttribute[] | undefined, key: string): string | null {
  const found = attributes?.find((a) => a.key === key)?.value;
  if (!found) return null;
  const value = Object.values(found)[0];
  return value == null ? null : String(value);
}

function isError(span: OtlpSpan): boolean {
  const code = span.status?.code;
  return code === 2 || code === "STATUS_CODE_ERROR";
}

function resourceSpans(trace: OtlpTrace): OtlpResourceSpans[] {
  return trace.batches ?? trace.resourceSpans ?? [];
}

/** The spans of an OTLP trace with their service names. */
export function traceSpans(trace: OtlpTrace): { span: OtlpSpan; service: string }[] {
  return resourceSpans(trace).flatMap((resource) => {
    const service = attribute(resource.resource?.attributes, "service.name") ?? "unknown service";
    const scopes = resource.scopeSpans ?? resource.instrumentationLibrarySpans ?? [];
    return scopes.flatMap((scope) => (scope.spans ?? []).map((span) => ({ span, service })));
  });
}

/** The waterfall of a trace; empty rows for a trace without spans. */
export function waterfallLayout(trace: OtlpTrace): Waterfall {
  const spans = traceSpans(trace)
    .map(({ span, service }) => ({
      span,
      service,
      id: idToHex(span.spanId),
      parent: idToHex(span.parentSpanId) || null,
      start: toBigInt(span.startTimeUnixNano),
      end: toBigInt(span.endTimeUnixNano),
    }))
    .filter((s) => s.start != null);
  if (spans.length === 0) return { rows: [], durationNs: 0, services: [] };

  let first = spans[0].start as bigint;
  let last = spans[0].end ?? first;
  for (const s of spans) {
    const start = s.start as bigint;
    const end = s.end ?? start;
    if (start < first) first = start;
    if (end > last) last = end;
  }
  const durationNs = Number(last - first);
  const ids = new Set(spans.map((s) => s.id));
  const children = new Map<string | null, typeof spans>();
  for (const s of spans) {
    const parent = s.parent && ids.has(s.parent) && s.parent !== s.id ? s.parent : null;
    children.set(parent, [...(children.get(parent) ?? []), s]);
  }
  const byStart = (a: (typeof spans)[number], b: (typeof spans)[number]) =>
    a.start === b.start
      ? a.span.name.localeCompare(b.span.name)
      : (a.start as bigint) < (b.start as bigint)
        ? -1
        : 1;

  const rows: WaterfallRow[] = [];
  const seen = new Set<string>();
  const visit = (s: (typeof spans)[number], depth: number) => {
    if (seen.has(s.id)) return;
    seen.add(s.id);
    const startNs = Number((s.start as bigint) - first);
    const durationOfSpan = Math.max(
      0,
      Number((s.end ?? (s.start as bigint)) - (s.start as bigint)),
    );
    rows.push({
      spanId: s.id,
      parentSpanId: s.parent,
      name: s.span.name,
      kind: kindName(s.span.kind),
      service: s.service,
      depth,
      startNs,
      durationNs: durationOfSpan,
      leftPercent: durationNs > 0 ? (startNs / durationNs) * 100 : 0,
      widthPercent: durationNs > 0 ? (durationOfSpan / durationNs) * 100 : 100,
      error: isError(s.span),
      orphan: s.parent != null && !ids.has(s.parent),
    });
    for (const child of [...(children.get(s.id) ?? [])].sort(byStart)) visit(child, depth + 1);
  };
  for (const root of [...(children.get(null) ?? [])].sort(byStart)) visit(root, 0);
  // Spans only reachable through a cycle of parent ids: still shown, as roots.
  for (const s of [...spans].sort(byStart)) visit(s, 0);

  return { rows, durationNs, services: [...new Set(spans.map((s) => s.service))] };
}
