import { type Ref, useEffect, useRef } from "react";
import { type FormErrors, fieldId, formErrors } from "../../api/validation";
import "./specForm.css";

/** What a form's mutation failed with, per field, and the summary's ref: focused when it fails. */
export function useErrorSummary(mutation: { error: unknown; isError: boolean }) {
  const summary = useRef<HTMLDivElement>(null);
  const errors: FormErrors = formErrors(mutation.error);
  useEffect(() => {
    if (mutation.isError) summary.current?.focus();
  }, [mutation.isError]);
  return { errors, summary };
}

/**
 * Every problem the API reported, each linked to its field; focused after a failed submit. With
 * `target`, a problem links to the field that shows it (`target` of its path), and one the form
 * has no field for (null) is listed here alone, without a link.
 */
export function ErrorSummary({
  errors,
  ref,
  title = "The experiment was not created",
  target = (field) => field,
}: {
  errors: FormErrors;
  ref?: Ref<HTMLDivElement>;
  title?: string;
  target?: (field: string) => string | null;
}) {
  if (errors.form.length === 0 && errors.issues.length === 0) return null;
  const focusField = (field: string) => {
    const element = document.getElementById(fieldId(field));
    element?.focus();
    element?.scrollIntoView({ block: "center" });
  };
  return (
    <div ref={ref} className="error-summary" role="alert" tabIndex={-1}>
      <h2>{title}</h2>
      <ul>
        {errors.form.map((message) => (
          <li key={`form-${message}`}>{message}</li>
        ))}
        {errors.issues.map((issue) => {
          const field = target(issue.field);
          return (
            <li key={`${issue.field}-${issue.message}`}>
              {field === null ? (
                <code>{issue.field}</code>
              ) : (
                <a
                  href={`#${fieldId(field)}`}
                  onClick={(event) => {
                    event.preventDefault();
                    focusField(field);
                  }}
                >
                  <code>{issue.field}</code>
                </a>
              )}
              : {issue.message}
              {field === null && <span className="muted"> (no field of this form sets it)</span>}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
