// The request-concurrency knobs of a spec (`concurrency`, spec/service.py Concurrency): their
// names, limits and what each means, and a set of them in words ("threads 64, cores 2") for the
// pages that show what a configuration or a tuning ran with.

import type { Concurrency } from "../api/types";

export type ConcurrencyKnob = keyof Concurrency;

export interface KnobInfo {
  knob: ConcurrencyKnob;
  label: string;
  /** What it sets, in a few words. */
  meaning: string;
  min: number;
  max: number;
}

/** Every knob, in the order the forms offer them and the pages name them (cores last). */
export const CONCURRENCY_KNOBS: readonly KnobInfo[] = [
  { knob: "threads", label: "Threads", meaning: "request worker threads", min: 1, max: 1024 },
  { knob: "workers", label: "Workers", meaning: "worker processes", min: 1, max: 64 },
  {
    knob: "gomaxprocs",
    label: "GOMAXPROCS",
    meaning: "threads running Go code at once",
    min: 1,
    max: 256,
  },
  {
    knob: "cores",
    label: "Cores",
    meaning: "the first N of the service's cores",
    min: 1,
    max: 1024,
  },
];

/** Whether `name` is a knob of the spec (GET /services lists them as plain strings). */
export function isConcurrencyKnob(name: string): name is ConcurrencyKnob {
  return CONCURRENCY_KNOBS.some((info) => info.knob === name);
}

/** The knobs set in a stored spec's `concurrency` (a dict), "threads 64, cores 2"; "" for none. */
export function concurrencyText(concurrency: unknown): string {
  if (typeof concurrency !== "object" || concurrency === null) return "";
  const values = concurrency as Record<string, unknown>;
  return CONCURRENCY_KNOBS.filter(({ knob }) => typeof values[knob] === "number")
    .map(({ knob }) => `${knob} ${values[knob]}`)
    .join(", ");
}

/**
 * Each configuration's concurrency in words, by name, from an experiment's stored spec; empty
 * when no configuration sets any (every one ran with the service's defaults).
 */
export function concurrencyByConfiguration(spec: unknown): Record<string, string> {
  const configurations = (spec as { configurations?: unknown } | null)?.configurations;
  if (!Array.isArray(configurations)) return {};
  const texts: Record<string, string> = {};
  for (const configuration of configurations as { name?: unknown; concurrency?: unknown }[]) {
    if (typeof configuration?.name !== "string") continue;
    texts[configuration.name] = concurrencyText(configuration.concurrency);
  }
  return Object.values(texts).some(Boolean) ? texts : {};
}
