// What a pipeline round's raw records say: telemetrygen's own count and rate
// (open_phase.generator, a dict the OpenAPI leaves open), the lab Collector's figures
// (resources), the ledger's kept ratio, and the ramp (closed_phase) when the spec asked for one.
// Read tolerantly: a round still running, or stored before a field existed, has none of them.

import type { PipelineClosedPhase, RampStep, RoundRaw, RoundSummary } from "../../api/types";
import type { RoundColumn } from "../../components/results/RoundsTable";
import {
  formatBytes,
  formatCores,
  formatNumber,
  formatSpanRate,
  formatUtilization,
  MISSING,
} from "../../lib/format";

type AnyRound = RoundSummary | RoundRaw;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function part(round: AnyRound, key: "open_phase" | "closed_phase" | "resources") {
  const value = key in round ? (round as RoundRaw)[key] : null;
  return isObject(value) ? value : null;
}

export interface GeneratorRecord {
  spans: number | null;
  target: number | null;
  achieved: number | null;
  saturated: boolean;
}

/** telemetrygen's record of the round's measured phase; null when the round has none. */
export function generatorOf(round: AnyRound): GeneratorRecord | null {
  const generator = part(round, "open_phase")?.generator;
  if (!isObject(generator)) return null;
  return {
    spans: num(generator.spans),
    target: num(generator.target_spans_per_s),
    achieved: num(generator.achieved_spans_per_s),
    saturated: generator.saturated === true,
  };
}

/** The round's ramp; null when it had none (the spec asked for none, or it is still to come). */
export function rampOf(round: AnyRound): PipelineClosedPhase | null {
  const closed = part(round, "closed_phase");
  if (!closed) return null;
  const ramp = Array.isArray(closed.ramp) ? (closed.ramp.filter(isObject) as unknown[]) : [];
  if (ramp.length === 0 && num(closed.max_sustainable_spans_per_s) == null) return null;
  return {
    ramp: ramp as RampStep[],
    max_sustainable_spans_per_s: num(closed.max_sustainable_spans_per_s),
    limited_by: typeof closed.limited_by === "string" ? closed.limited_by : null,
    why: typeof closed.why === "string" ? closed.why : null,
  };
}

export interface RoundRamp extends PipelineClosedPhase {
  configuration: string;
  round: number;
  steps: RampStep[];
}

/** Every completed round's ramp, variants in spec order, then by round. */
export function roundRamps(rounds: readonly RoundRaw[], order: readonly string[]): RoundRamp[] {
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  return rounds
    .filter((round) => round.status === "completed")
    .map((round) => ({ round, ramp: rampOf(round) }))
    .filter((item): item is { round: RoundRaw; ramp: PipelineClosedPhase } => item.ramp != null)
    .sort(
      (a, b) =>
        rank(a.round.configuration) - rank(b.round.configuration) ||
        a.round.round_index - b.round.round_index,
    )
    .map(({ round, ramp }) => ({
      ...ramp,
      configuration: round.configuration,
      round: round.round_index,
      steps: ramp.ramp ?? [],
    }));
}

function figure(round: AnyRound, key: string): number | null {
  return num(part(round, "resources")?.[key]);
}

const known = (value: number | null, format: (v: number) => string) =>
  value == null ? MISSING : format(value);

/** A pipeline round's columns in the rounds table (the ramp's only when some round had one). */
export function pipelineRoundColumns(rounds: readonly AnyRound[]): RoundColumn[] {
  const columns: RoundColumn[] = [
    {
      header: "Spans generated",
      cell: (round) => known(generatorOf(round)?.spans ?? null, (v) => formatNumber(v, 0)),
    },
    {
      header: "telemetrygen rate",
      cell: (round) => {
        const generator = generatorOf(round);
        if (!generator || generator.achieved == null) return MISSING;
        const of = generator.target != null ? ` of ${formatNumber(generator.target, 0)}` : "";
        return `${formatSpanRate(generator.achieved).replace(" spans/s", "")}${of} spans/s${
          generator.saturated ? " (saturated)" : ""
        }`;
      },
    },
    { header: "Collector CPU", cell: (round) => known(figure(round, "cpu_cores"), formatCores) },
    { header: "RSS peak", cell: (round) => known(figure(round, "rss_max_bytes"), formatBytes) },
    {
      header: "Kept",
      cell: (round) => {
        const ledger = part(round, "open_phase")?.ledger;
        return known(isObject(ledger) ? num(ledger.kept_ratio) : null, formatUtilization);
      },
    },
  ];
  if (rounds.some((round) => rampOf(round) != null))
    columns.push({
      header: "Max sustainable",
      cell: (round) => {
        const ramp = rampOf(round);
        if (!ramp) return MISSING;
        const rate = known(ramp.max_sustainable_spans_per_s ?? null, formatSpanRate);
        return ramp.limited_by ? `${rate} (limited by: ${ramp.limited_by})` : rate;
      },
    });
  return columns;
}
