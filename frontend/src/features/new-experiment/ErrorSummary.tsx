import { type Ref, useEffect, useRef } from "react";
import { type FormErrors, fieldId, formErrors } from "../../api/validation";

/** What a form's mutation failed with, per field, and the summary's ref: focused when it fails. */
export function useErrorSummary(mutation: { error: unknown; isError: boolean }) {
  const summary = useRef<HTMLDivElement>(null);
  const errors: FormErrors = formErrors(mutation.error);
  useEffect(() => {
    if (mutation.isError) summary.current?.focus();
  }, [mutation.isError]);
  return { errors, summary };
}

/** Every problem the API reported, each linked to its field; focused after a failed submit. */
export function ErrorSummary({
  errors,
  ref,
  title = "The experiment was not created",
}: {
  errors: FormErrors;
  ref?: Ref<HTMLDivElement>;
  title?: string;
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
        {errors.issues.map((issue) => (
          <li key={`${issue.field}-${issue.message}`}>
            <a
              href={`#${fieldId(issue.field)}`}
              onClick={(event) => {
                event.preventDefault();
                focusField(issue.field);
              }}
            >
              <code>{issue.field}</code>
            </a>
            : {issue.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
