// Maps an API error onto a form: FastAPI's 422 `detail` list becomes messages per field path
// ("load.rate", "configurations.1.env"), anything else becomes a form-level message.

import { ApiError, errorMessage } from "./client";

export interface FieldIssue {
  /** Dotted path without the leading "body": "load.rate", "configurations.0.processor"; "" for the whole spec. */
  field: string;
  message: string;
}

export interface FormErrors {
  /** Messages per field path, in the API's order. */
  fields: Record<string, string[]>;
  /** Every field issue, in the API's order (for an error summary). */
  issues: FieldIssue[];
  /** Messages that belong to no field: a 404 detail, a network error, a spec-level 422. */
  form: string[];
}

export const NO_ERRORS: FormErrors = { fields: {}, issues: [], form: [] };

interface RawIssue {
  loc?: unknown[];
  msg?: unknown;
}

/** The field path of a 422 `loc`: drops "body" and the tag of a discriminated union. */
export function fieldPath(loc: unknown[]): string {
  const parts = loc[0] === "body" ? loc.slice(1) : [...loc];
  // service is a tagged union (demo | command): pydantic puts the tag in the location.
  if (parts[0] === "service" && (parts[1] === "demo" || parts[1] === "command")) parts.splice(1, 1);
  return parts.map(String).join(".");
}

/** Turns what a mutation threw into errors a form can show beside its fields. */
export function formErrors(error: unknown): FormErrors {
  if (error == null) return NO_ERRORS;
  const detail =
    error instanceof ApiError &&
    error.body &&
    typeof error.body === "object" &&
    "detail" in error.body
      ? (error.body as { detail: unknown }).detail
      : undefined;
  if (!(error instanceof ApiError) || error.status !== 422 || !Array.isArray(detail)) {
    return { fields: {}, issues: [], form: [errorMessage(error)] };
  }
  const result: FormErrors = { fields: {}, issues: [], form: [] };
  for (const raw of detail as RawIssue[]) {
    const message = typeof raw.msg === "string" ? raw.msg : "invalid value";
    const field = Array.isArray(raw.loc) ? fieldPath(raw.loc) : "";
    if (field === "") {
      result.form.push(message);
      continue;
    }
    result.issues.push({ field, message });
    result.fields[field] = [...(result.fields[field] ?? []), message];
  }
  return result;
}

/** Messages for `field` and, with `nested`, for anything below it ("configurations.1.env.X"). */
export function messagesFor(errors: FormErrors, field: string, nested = false): string[] {
  if (!nested) return errors.fields[field] ?? [];
  return errors.issues
    .filter((issue) => issue.field === field || issue.field.startsWith(`${field}.`))
    .map((issue) =>
      issue.field === field
        ? issue.message
        : `${issue.field.slice(field.length + 1)}: ${issue.message}`,
    );
}

/** The DOM id of the input for a field path (used by fields and by the error summary's links). */
export function fieldId(field: string): string {
  return `field-${field.replace(/[^A-Za-z0-9_-]/g, "-")}`;
}
