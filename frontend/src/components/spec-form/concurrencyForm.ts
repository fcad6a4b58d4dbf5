// The "Concurrency" fields of a form (an experiment configuration's, a tuning's) as plain data:
// which knobs the service has, and what is sent for them. Inputs keep their text; a blank one is
// not sent (the service's default), and a knob the service has not is never sent, so a value
// typed for another service does not come back as an error the form cannot show.

import type { Concurrency, ServiceInfo } from "../../api/types";
import { CONCURRENCY_KNOBS, type ConcurrencyKnob, isConcurrencyKnob } from "../../lib/concurrency";

export type ConcurrencyDraft = Record<ConcurrencyKnob, string>;

export function emptyConcurrency(): ConcurrencyDraft {
  return { threads: "", workers: "", gomaxprocs: "", cores: "" };
}

/** In the knobs' own order, with `cores`, which every service has. */
function withCores(knobs: readonly string[]): ConcurrencyKnob[] {
  return CONCURRENCY_KNOBS.map(({ knob }) => knob).filter(
    (knob) => knob === "cores" || knobs.includes(knob),
  );
}

/** A demo service's knobs (GET /services `concurrency`), and cores. */
export function demoKnobs(
  service: Pick<ServiceInfo, "concurrency"> | undefined,
): ConcurrencyKnob[] {
  return withCores((service?.concurrency ?? []).filter(isConcurrencyKnob));
}

/**
 * A command service's knobs: GOMAXPROCS for Go, and cores. Its threads and workers are set by
 * its own argv, so the API takes no other.
 */
export function commandKnobs(language: string): ConcurrencyKnob[] {
  return withCores(language === "go" ? ["gomaxprocs"] : []);
}

/** The knobs a form offers: the demo's own (GET /services), or a command's (GOMAXPROCS in Go),
 * and cores. Shared by the new-experiment and the tuning forms. */
export function concurrencyKnobs(
  form: { kind: "demo" | "command"; language: string; command: { language: string } },
  services: readonly ServiceInfo[],
): ConcurrencyKnob[] {
  return form.kind === "command"
    ? commandKnobs(form.command.language)
    : demoKnobs(services.find((s) => s.language === form.language));
}

/** The spec's `concurrency`: the offered knobs that were typed in; undefined when none was. */
export function toConcurrency(
  draft: ConcurrencyDraft,
  knobs: readonly ConcurrencyKnob[],
): Concurrency | undefined {
  const concurrency: Record<string, number | string> = {};
  for (const knob of knobs) {
    const text = draft[knob].trim();
    if (text === "") continue;
    // Sent as typed when it is not a number: the API's 422 names it beside the field.
    concurrency[knob] = Number.isFinite(Number(text)) ? Number(text) : text;
  }
  return Object.keys(concurrency).length > 0 ? (concurrency as Concurrency) : undefined;
}

/**
 * Where the form shows a message about `knob` of the concurrency at `path` ("concurrency",
 * "configurations.0.concurrency"): beside the knob's input, or beside the group as a whole.
 */
export function concurrencyIssueTarget(path: string, knob: string | undefined): string {
  return knob !== undefined && isConcurrencyKnob(knob) ? `${path}.${knob}` : path;
}
