// Where the API's messages about a spec are shown in the new-experiment form. FastAPI's 422 names
// a field by its `loc` (["body","service","command","port"] → "service.port", see
// api/validation.ts fieldPath), as do our SpecError items (["configurations",0,"processor"]);
// each is shown beside the input that edits it, or beside the nearest part of the form that does
// ("configurations.1.env.OTEL_X" beside the variables of configuration 2). One that no part of the
// form edits (an injected cost, a configuration that is gone) is left to the error summary alone.

import type { FieldIssue, FormErrors } from "../../api/validation";
import type { FormState } from "./form";

const LOAD_NUMBERS = ["rate", "warmup_s", "duration_s", "connections", "max_throughput_s"];
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
 * The field path whose input (or part of the form) shows the messages about `field`, or null when
 * the form has nothing that edits it.
 */
export function placeIssue(form: FormState, field: string): string | null {
  const [head, second, third] = field.split(".");
  const command = form.kind === "command";
  switch (head) {
    case "name":
    case "rounds":
    case "seed":
    case "sample_stacks":
      return second === undefined ? head : null;
    case "service":
      if (!command)
        return second === undefined || second === "language" ? "service.language" : null;
      if (second === undefined || second === "kind") return "service";
      if (second === "argv") {
        const index = rowIndex(third, form.command.argv.length);
        return index === null ? "service.argv" : `service.argv.${index}`;
      }
      return COMMAND_FIELDS.includes(second) ? `service.${second}` : null;
    case "configurations": {
      if (second === undefined) return "configurations";
      const index = rowIndex(second, form.configurations.length);
      if (index === null) return null;
      const path = `configurations.${index}`;
      if (third === undefined || third === "preset" || third === "baseline") return path;
      if (third === "name" || third === "processor" || third === "env") return `${path}.${third}`;
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
      if (second === "method" || second === "body" || second === "headers") return `load.${second}`;
      if (second === "paths") {
        const index = rowIndex(third, form.request.paths.length);
        if (index === null) return "load.paths";
        const [, , , fourth] = field.split(".");
        return `load.paths.${index}.${fourth === "weight" ? "weight" : "path"}`;
      }
      return null;
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
  const beside: FormErrors = { fields: {}, issues: [], form: errors.form };
  const unplaced: FieldIssue[] = [];
  for (const issue of errors.issues) {
    const placed = placeIssue(form, issue.field);
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
