// Where the API's messages about a spec are shown in the new-experiment form. FastAPI's 422 names
// a field by its `loc` (["body","service","command","port"] → "service.port", see
// api/validation.ts fieldPath), as do our SpecError items (["configurations",0,"processor"]);
// each is shown beside the input that edits it, or beside the nearest part of the form that does
// ("configurations.1.env.OTEL_X" beside the variables of configuration 2). One that no part of the
// form edits (an injected cost, a configuration that is gone) is left to the error summary alone.
// The new-tuning form places its own with placeErrorsWith and the targets of the parts it shares
// with this one (your service, its requests, the concurrency).

import type { FieldIssue, FormErrors } from "../../api/validation";
import { concurrencyIssueTarget } from "./concurrencyForm";
import type { CommandDraft, FormState, RequestDraft } from "./form";

const LOAD_NUMBERS = [
  "rate",
  "warmup_s",
  "duration_s",
  "connections",
  "max_throughput_s",
  "side_by_side_s",
  "side_by_side_instances",
];
const PRECISION_FIELDS = ["metrics", "half_width_pct", "max_wall_time_s"];
const COMMAND_FIELDS = [
  "cwd",
  "port",
  "health_path",
  "service_name",
  "language",
  "startup_timeout_s",
  "spans_per_request",
  "pprof_port",
];

function rowIndex(part: string | undefined, rows: number): number | null {
  if (part === undefined || !/^\d+$/.test(part)) return null;
  const index = Number(part);
  return index < rows ? index : null;
}

/**
 * Where YourServiceFields shows a message about `service.<rest>` of a command service: beside
 * the input, the argv row, the argv list, or the "Your service" choice itself.
 */
export function commandServiceTarget(
  command: CommandDraft,
  rest: readonly string[],
): string | null {
  const [second, third] = rest;
  if (second === undefined || second === "kind") return "service";
  if (second === "argv") {
    const index = rowIndex(third, command.argv.length);
    return index === null ? "service.argv" : `service.argv.${index}`;
  }
  return COMMAND_FIELDS.includes(second) ? `service.${second}` : null;
}

/**
 * Where RequestFields shows a message about `load.<rest>` of a command service's requests (the
 * method, a path row or its weight, the headers, the body); null for what it does not edit.
 */
export function requestLoadTarget(request: RequestDraft, rest: readonly string[]): string | null {
  const [second, third, fourth] = rest;
  if (second === "method" || second === "body" || second === "headers") return `load.${second}`;
  if (second === "paths") {
    const index = rowIndex(third, request.paths.length);
    if (index === null) return "load.paths";
    return `load.paths.${index}.${fourth === "weight" ? "weight" : "path"}`;
  }
  return null;
}

/**
 * The field path whose input (or part of the form) shows the messages about `field`, or null when
 * the form has nothing that edits it.
 */
export function placeIssue(form: FormState, field: string): string | null {
  const [head, second, third, fourth] = field.split(".");
  const command = form.kind === "command";
  switch (head) {
    case "name":
    case "rounds":
    case "seed":
    case "sample_stacks":
      return second === undefined ? head : null;
    case "precision":
      if (!form.precision.enabled) return null;
      return second !== undefined && PRECISION_FIELDS.includes(second)
        ? `precision.${second}`
        : "precision";
    case "service":
      if (!command)
        return second === undefined || second === "language" ? "service.language" : null;
      return commandServiceTarget(form.command, field.split(".").slice(1));
    case "configurations": {
      if (second === undefined) return "configurations";
      const index = rowIndex(second, form.configurations.length);
      if (index === null) return null;
      const path = `configurations.${index}`;
      if (third === undefined || third === "preset" || third === "baseline") return path;
      if (third === "name" || third === "processor" || third === "env") return `${path}.${third}`;
      if (third === "concurrency") return concurrencyIssueTarget(`${path}.concurrency`, fourth);
      return null;
    }
    case "load":
      if (second === undefined) return "load";
      if (LOAD_NUMBERS.includes(second)) return `load.${second}`;
      if (!command) {
        if (second === "path") return "load.path";
        if (second === "query")
          return third === "iters" || third === "spans" ? `load.query.${third}` : "load.query";
        return null;
      }
      return requestLoadTarget(form.request, field.split(".").slice(1));
    default:
      return null;
  }
}

/** `message` about `field`, shown beside `placed`: prefixed with what it is about when that differs. */
function besideMessage(field: string, placed: string, message: string): string {
  if (field === placed || placed.startsWith(`${field}.`)) return message;
  if (field.startsWith(`${placed}.`)) return `${field.slice(placed.length + 1)}: ${message}`;
  return `${field}: ${message}`;
}

/**
 * The API's errors keyed by where the form shows them (what the inputs read with `messagesFor`),
 * and the issues the form has no place for (the summary shows those without a link).
 */
export function placeErrors(
  form: FormState,
  errors: FormErrors,
): { beside: FormErrors; unplaced: FieldIssue[] } {
  return placeErrorsWith(errors, (field) => placeIssue(form, field));
}

/** `placeErrors` for any form: `target` says where a field's messages go (null: nowhere). */
export function placeErrorsWith(
  errors: FormErrors,
  target: (field: string) => string | null,
): { beside: FormErrors; unplaced: FieldIssue[] } {
  const beside: FormErrors = { fields: {}, issues: [], form: errors.form };
  const unplaced: FieldIssue[] = [];
  for (const issue of errors.issues) {
    const placed = target(issue.field);
    if (placed === null) {
      unplaced.push(issue);
      continue;
    }
    const message = besideMessage(issue.field, placed, issue.message);
    beside.issues.push({ field: placed, message });
    beside.fields[placed] = [...(beside.fields[placed] ?? []), message];
  }
  return { beside, unplaced };
}
