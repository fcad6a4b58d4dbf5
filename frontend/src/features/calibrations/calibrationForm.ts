// The calibration form as plain data, how it becomes the API's CalibrationRequest, and what a
// calibration's noise floor means for a check. Like `tracetax calibrate`: the configuration
// measured twice is a preset, the load has no max-throughput phase, and the load's defaults
// are the new-check form's, so a calibration made here serves the checks made there.

import type { CalibrationRequest, NoiseFloor, Preset } from "../../api/types";
import { describeNoiseFloor } from "../../components/results/overhead";
import { DEFAULT_LOAD, type LoadDraft, loadRequest } from "../../components/spec-form/loadForm";

export interface CalibrationFormState extends LoadDraft {
  language: string;
  /** The preset measured twice: the baseline of the checks this calibration serves. */
  configuration: string;
}

/** `tracetax calibrate` runs no max-throughput phase; warm-up is the API's default. */
export const CALIBRATION_LOAD = { warmup_s: 5, max_throughput_s: 0 } as const;

export function initialCalibrationForm(
  languages: readonly string[],
  presets: readonly Preset[],
): CalibrationFormState {
  return {
    language: languages.includes("go") ? "go" : (languages[0] ?? ""),
    configuration: presets.some((p) => p.name === "none") ? "none" : (presets[0]?.name ?? ""),
    ...DEFAULT_LOAD,
    rounds: "5",
  };
}

/** The request to POST; what was typed goes as typed, for the API to judge (422 beside fields). */
export function toCalibrationRequest(form: CalibrationFormState): CalibrationRequest {
  return {
    service: { kind: "demo", language: form.language },
    configuration: { preset: form.configuration },
    ...loadRequest(form, { max_throughput_s: CALIBRATION_LOAD.max_throughput_s }),
  } as unknown as CalibrationRequest;
}

/** The metrics a check judges, in the order the meaning names them. */
const CHECKED = ["p50", "p99", "cpu_per_request_us"];

/**
 * What a calibration's floor means for a check at its load: "a check with 5 rounds at this load
 * can resolve changes larger than ±2.1% p50, ±8.7% p99, ±1.8% CPU per request"; null when no
 * checked metric has a floor.
 */
export function floorMeaning(
  floors: Record<string, NoiseFloor> | null | undefined,
): { rounds: number; changes: string[] } | null {
  if (!floors) return null;
  const known = CHECKED.map((metric) => floors[metric]).filter(
    (floor): floor is NoiseFloor => floor != null && floor.relative_pct != null,
  );
  if (known.length === 0) return null;
  return {
    rounds: Math.max(...known.map((floor) => floor.pairs)),
    changes: known.map((floor) => `${describeNoiseFloor(floor)?.relative} ${floor.label}`),
  };
}

/** The signature's load as words: "200 req/s for 10 s, 16 connections, /work?iters=1000&spans=5". */
export function loadText(signature: Record<string, unknown>): string | null {
  const load = signature.load;
  if (typeof load !== "object" || load === null) return null;
  const { rate, duration_s, connections, path, query } = load as Record<string, unknown>;
  const parts: string[] = [];
  if (rate != null) parts.push(`${rate} req/s${duration_s != null ? ` for ${duration_s} s` : ""}`);
  if (connections != null) parts.push(`${connections} connections`);
  if (typeof path === "string") {
    const entries =
      typeof query === "object" && query !== null ? Object.entries(query as object) : [];
    const search = entries.map(([k, v]) => `${k}=${v}`).join("&");
    parts.push(search ? `${path}?${search}` : path);
  }
  return parts.length > 0 ? parts.join(", ") : null;
}

/** The signature's configuration as words: "none", "batch, OTEL_BSP_MAX_QUEUE_SIZE=8192". */
export function configurationText(signature: Record<string, unknown>): string | null {
  const processor = typeof signature.processor === "string" ? signature.processor : null;
  if (!processor) return null;
  const env =
    typeof signature.env === "object" && signature.env !== null
      ? Object.entries(signature.env as Record<string, unknown>).map(([k, v]) => `${k}=${v}`)
      : [];
  return [processor, ...env].join(", ");
}
