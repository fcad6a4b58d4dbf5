// The span ledger as a flow: expected → accepted by the Collector → sent to the store → stored,
// with each counted loss (dropped in the SDK, refused by the Collector, failed export) on the
// hop where it happened, and whatever no stage accounts for as an "unaccounted" gap on its hop.
// An unknown stage stays unknown with its reason: it is never taken as 0.
// The stages' names, order and gap wording are a vocabulary: a service's span ledger by default,
// a Collector pipeline's (features/pipeline-results/pipelineLedger.ts) with its own.

import type { LedgerStage, RoundLedger, SignalLedger } from "../../api/types";

export const SIGNALS = [
  { key: "spans", label: "Spans" },
  { key: "log_records", label: "Log records" },
  { key: "request_counter", label: "Request counter" },
] as const;

export type SignalKey = (typeof SIGNALS)[number]["key"];

export interface StageInfo {
  label: string;
  hint: string;
  /** Shown on the hop before the next count, rather than as a count. */
  loss: boolean;
  position: number;
  /** A hop item that is not a loss: spans a processor held back or sampled out on purpose. */
  kept?: boolean;
}

/** How a ledger's stages read: labels, pipeline order, what a gap before a count means. */
export interface LedgerVocabulary {
  stages: Record<string, StageInfo>;
  /** Per count: what a positive gap before it is ("not found in the store"). */
  gaps: Record<string, string>;
  /** Counts before which a positive gap need not be a loss (a sampling pipeline's). */
  neutralGaps?: readonly string[];
  /** The flow's extent, for its list's name: "from expected to stored". */
  range: string;
}

const STAGES: Record<string, StageInfo> = {
  expected: {
    label: "Expected",
    hint: "requests answered × items per request",
    loss: false,
    position: 0,
  },
  sdk_dropped: {
    label: "dropped in the SDK",
    hint: "the SDK's own queue-full counter",
    loss: true,
    position: 1,
  },
  collector_refused: {
    label: "refused by the Collector",
    hint: "the Collector receiver's refused counter",
    loss: true,
    position: 2,
  },
  collector_accepted: {
    label: "Accepted by the Collector",
    hint: "the Collector receiver's accepted counter",
    loss: false,
    position: 3,
  },
  exporter_failed: {
    label: "failed to reach the store",
    hint: "the Collector exporter's send-failed counter",
    loss: true,
    position: 4,
  },
  exporter_sent: {
    label: "Sent to the store",
    hint: "the Collector exporter's sent counter",
    loss: false,
    position: 5,
  },
  stored: {
    label: "Stored",
    hint: "found in Tempo, Loki or the metrics store by run id",
    loss: false,
    position: 6,
  },
};

const GAP_LABELS: Record<string, string> = {
  collector_accepted: "lost between the SDK and the Collector, counted by no stage",
  exporter_sent: "lost inside the Collector, counted by no stage",
  stored: "not found in the store",
};

/** A line under a count: "downstream-1: 1,960", "complete traces: 800 of 800". */
export interface FlowDetail {
  label: string;
  text: string;
}

/** A ledger stage with the lines to show under it (a pipeline's per-downstream arrivals). */
export type FlowStage = LedgerStage & { details?: FlowDetail[] };

export interface CountStep {
  type: "count";
  stage: string;
  label: string;
  hint: string;
  /** null: unknown (never 0). */
  value: number | null;
  reason: string | null;
  details?: FlowDetail[];
}

export interface LossStep {
  type: "loss";
  stage: string;
  label: string;
  hint: string;
  value: number | null;
  reason: string | null;
  /** Held back or sampled out on purpose: not counted as lost. */
  kept?: boolean;
}

/** What no stage accounts for between two counts: positive lost, negative more than expected. */
export interface GapStep {
  type: "gap";
  label: string;
  value: number;
  /** Counted as lost (false where a sampling pipeline may leave spans out on purpose). */
  lost: boolean;
}

export interface HopStep {
  type: "hop";
  items: (LossStep | GapStep)[];
}

export type FlowStep = CountStep | HopStep;

export interface SignalFlow {
  signal: string;
  label: string;
  /** "from expected to stored". */
  range: string;
  /** Counts with the hops between them: count, hop, count, hop, count … */
  steps: FlowStep[];
  balanced: boolean | null;
  note: string | null;
  /** Stages whose value is unknown. */
  unknown: number;
  /** Known losses plus unaccounted gaps (positive ones). */
  lost: number;
}

/** A service's span ledger: expected from the requests, through the SDK and Collector, stored. */
export const SPAN_LEDGER: LedgerVocabulary = {
  stages: STAGES,
  gaps: GAP_LABELS,
  range: "from expected to stored",
};

function describe(stage: string, vocabulary: LedgerVocabulary): StageInfo {
  return (
    vocabulary.stages[stage] ?? {
      label: stage.replace(/_/g, " "),
      hint: "",
      loss: false,
      position: Number.POSITIVE_INFINITY,
    }
  );
}

/**
 * One signal as a flow. Stages are put in pipeline order (a refusal happens before the
 * Collector accepts); the gap on a hop is computed only when every value on it is known.
 */
export function ledgerFlow(
  signal: Omit<SignalLedger, "stages" | "signal"> & { signal: string; stages: FlowStage[] },
  vocabulary: LedgerVocabulary = SPAN_LEDGER,
): SignalFlow {
  const ordered = signal.stages
    .map((stage, index) => ({ stage, index }))
    .sort(
      (a, b) =>
        describe(a.stage.stage, vocabulary).position -
          describe(b.stage.stage, vocabulary).position || a.index - b.index,
    )
    .map(({ stage }) => stage);
  const steps: FlowStep[] = [];
  let previous: CountStep | null = null;
  let pending: LossStep[] = [];
  let lost = 0;

  const closeHop = (next: CountStep | null) => {
    const items: (LossStep | GapStep)[] = [...pending];
    if (previous && next && previous.value != null && next.value != null) {
      const losses = pending.map((loss) => loss.value);
      if (losses.every((value) => value != null)) {
        const gap =
          previous.value - next.value - losses.reduce((sum: number, v) => sum + (v ?? 0), 0);
        if (gap !== 0) {
          const counted = !(gap > 0 && vocabulary.neutralGaps?.includes(next.stage));
          items.push({
            type: "gap",
            label:
              gap > 0
                ? (vocabulary.gaps[next.stage] ?? `unaccounted before ${next.label.toLowerCase()}`)
                : `more than the stage before (other senders or a counter reset)`,
            value: gap,
            lost: counted,
          });
          if (gap > 0 && counted) lost += gap;
        }
      }
    }
    if (items.length > 0 || (previous && next)) steps.push({ type: "hop", items });
    pending = [];
  };

  for (const stage of ordered) {
    const info = describe(stage.stage, vocabulary);
    const base = {
      stage: stage.stage,
      label: info.label,
      hint: info.hint,
      value: stage.value,
      reason: stage.value == null ? (stage.unknown_reason ?? "not read") : null,
    };
    if (info.loss) {
      pending.push({ type: "loss", ...base, ...(info.kept ? { kept: true } : {}) });
      if (stage.value != null && !info.kept) lost += stage.value;
      continue;
    }
    const count: CountStep = {
      type: "count",
      ...base,
      ...(stage.details?.length ? { details: stage.details } : {}),
    };
    closeHop(count);
    steps.push(count);
    previous = count;
  }
  if (pending.length > 0) closeHop(null);

  return {
    signal: signal.signal,
    label: SIGNALS.find((s) => s.key === signal.signal)?.label ?? signal.signal,
    range: vocabulary.range,
    steps,
    balanced: signal.balanced,
    note: signal.note ?? null,
    unknown: signal.stages.filter((stage) => stage.value == null).length,
    lost,
  };
}

/** "rounds 1, 2: reason" for reasons that repeat over rounds. */
function joinReasons(reasons: { round: number; reason: string }[]): string {
  const byReason = new Map<string, number[]>();
  for (const { round, reason } of reasons)
    byReason.set(reason, [...(byReason.get(reason) ?? []), round]);
  return [...byReason.entries()]
    .map(
      ([reason, rounds]) =>
        `round${rounds.length === 1 ? "" : "s"} ${rounds.map((r) => r + 1).join(", ")}: ${reason}`,
    )
    .join("; ");
}

/**
 * A configuration's signals over the chosen rounds: each stage summed over the rounds, or
 * unknown (with every round's reason) when any round could not read it.
 */
export function combineRounds(
  ledger: readonly RoundLedger[],
  configuration: string,
  round: number | "all" = "all",
): SignalLedger[] {
  const rounds = ledger
    .filter(
      (r) => r.configuration === configuration && (round === "all" || r.round_index === round),
    )
    .sort((a, b) => a.round_index - b.round_index);
  if (rounds.length === 1) return rounds[0].signals;
  const signals = new Map<
    string,
    { signal: SignalLedger["signal"]; perRound: { round: number; ledger: SignalLedger }[] }
  >();
  for (const r of rounds) {
    for (const signal of r.signals) {
      const entry = signals.get(signal.signal) ?? { signal: signal.signal, perRound: [] };
      entry.perRound.push({ round: r.round_index, ledger: signal });
      signals.set(signal.signal, entry);
    }
  }
  return [...signals.values()].map(({ signal, perRound }) => {
    const names: string[] = [];
    for (const { ledger: l } of perRound)
      for (const stage of l.stages) if (!names.includes(stage.stage)) names.push(stage.stage);
    const stages: LedgerStage[] = names.map((name) => {
      let sum = 0;
      const missing: { round: number; reason: string }[] = [];
      for (const { round: index, ledger: l } of perRound) {
        const stage = l.stages.find((s) => s.stage === name);
        if (stage?.value == null)
          missing.push({
            round: index,
            reason: stage ? (stage.unknown_reason ?? "not read") : "not in this round's ledger",
          });
        else sum += stage.value;
      }
      return missing.length > 0
        ? { stage: name, value: null, unknown_reason: joinReasons(missing) }
        : { stage: name, value: sum, unknown_reason: null };
    });
    const balances = perRound.map(({ ledger: l }) => l.balanced);
    const notes = [...new Set(perRound.map(({ ledger: l }) => l.note).filter(Boolean))];
    return {
      signal,
      stages,
      balanced: balances.includes(false) ? false : balances.every((b) => b === true) ? true : null,
      note: notes.length > 0 ? notes.join("; ") : null,
    };
  });
}

/** Whether any stage of any round is unknown (then collecting again may help). */
export function hasUnknownStages(ledger: readonly RoundLedger[]): boolean {
  return ledger.some((r) => r.signals.some((s) => s.stages.some((stage) => stage.value == null)));
}

/** Round indexes in the ledger, for the round picker. */
export function ledgerRounds(ledger: readonly RoundLedger[]): number[] {
  return [...new Set(ledger.map((r) => r.round_index))].sort((a, b) => a - b);
}
