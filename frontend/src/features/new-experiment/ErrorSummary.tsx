import type { Ref } from "react";
import { type FormErrors, fieldId } from "../../api/validation";

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
