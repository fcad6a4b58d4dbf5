// The recommendation of a pipeline experiment's diagnostics (diagnostics/pipeline_recommend.py):
// for a span rate, each variant's cores and memory with the memory_limiter that holds it, the
// batch settings and the trace-holding processor to choose, and the figures it stands on.

import type { PipelineRecommendation, VariantSizing } from "../../api/types";
import { formatNumber } from "../../lib/format";

/** The highest rate the API sizes for (GET …/diagnostics `target_spans_per_s`). */
export const MAX_TARGET_SPANS_PER_S = 10_000_000;

/** Whether the recommendation says anything: a variant sized, a choice, or evidence. */
export function hasAdvice(recommendation: PipelineRecommendation | null | undefined): boolean {
  if (!recommendation) return false;
  return (
    recommendation.sizing.length > 0 ||
    recommendation.batch != null ||
    recommendation.trace_holding != null ||
    recommendation.evidence.length > 0
  );
}

/** The memory_limiter settings as they go into a config: "limit_mib: 69, spike_limit_mib: 14". */
export function limiterText(limiter: VariantSizing["memory_limiter"]): string | null {
  if (!limiter || limiter.limit_mib == null) return null;
  const spike = limiter.spike_limit_mib;
  return `limit_mib: ${formatNumber(limiter.limit_mib, 0)}${
    spike != null ? `, spike_limit_mib: ${formatNumber(spike, 0)}` : ""
  }`;
}

/** A typed span rate to size for, or why it cannot be one (the API judges the upper bound too). */
export function parseTarget(text: string): { target: number } | { error: string } {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (trimmed === "" || !Number.isFinite(value) || value <= 0)
    return { error: "Enter a span rate above 0." };
  if (value > MAX_TARGET_SPANS_PER_S)
    return { error: `At most ${formatNumber(MAX_TARGET_SPANS_PER_S, 0)} spans/s.` };
  return { target: value };
}
