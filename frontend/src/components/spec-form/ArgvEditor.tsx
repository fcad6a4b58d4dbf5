import { type FormErrors, fieldId, messagesFor } from "../../api/validation";
import { type ArgRow, argRows, hasWhitespace, moveRow, splitArgument, splitRow } from "./form";

interface Props {
  rows: ArgRow[];
  onChange: (rows: ArgRow[]) => void;
  /** The API's messages, keyed where the form shows them (errors.ts placeErrors). */
  errors: FormErrors;
}

/** The accessible name of argument `index`'s input. */
export function argumentLabel(index: number): string {
  return index === 0 ? "Argument 0 (the program)" : `Argument ${index}`;
}

/**
 * The command as a list: one row per argument, given to the program as is. Never a shell line:
 * a row with spaces stays one argument (a hint says so and offers to split it).
 */
export function ArgvEditor({ rows, onChange, errors }: Props) {
  const field = "service.argv";
  const listErrors = messagesFor(errors, field);
  const errorId = listErrors.length > 0 ? `${fieldId(field)}-error` : undefined;
  const update = (index: number, value: string) =>
    onChange(rows.map((row, i) => (i === index ? { ...row, value } : row)));
  return (
    <fieldset
      className="argv-editor"
      id={fieldId(field)}
      aria-describedby={[`${fieldId(field)}-hint`, errorId].filter(Boolean).join(" ")}
    >
      <legend>Command (argv)</legend>
      <p className="hint" id={`${fieldId(field)}-hint`}>
        One argument per row, given to the program as is: no shell, so nothing is split, quoted,
        globbed or expanded. Argument 0 is the program: a name on the backend's PATH or a path (a
        leading <code>~</code> is the backend's home).
      </p>
      <ol className="argv-rows">
        {rows.map((row, index) => {
          const id = fieldId(`${field}.${index}`);
          const rowErrors = messagesFor(errors, `${field}.${index}`);
          const spaced = hasWhitespace(row.value);
          const parts = spaced ? splitArgument(row.value).length : 0;
          const hintId = spaced ? `${id}-hint` : undefined;
          const rowErrorId = rowErrors.length > 0 ? `${id}-error` : undefined;
          const label = argumentLabel(index);
          return (
            <li key={row.uid} className="argv-row">
              <span className="argv-index mono" aria-hidden="true">
                [{index}]
              </span>
              <input
                id={id}
                aria-label={label}
                className="mono"
                value={row.value}
                placeholder={index === 0 ? "python3, ./my-service, java…" : undefined}
                spellCheck={false}
                autoCapitalize="off"
                autoComplete="off"
                aria-invalid={rowErrors.length > 0 || undefined}
                aria-describedby={[hintId, rowErrorId].filter(Boolean).join(" ") || undefined}
                onChange={(event) => update(index, event.target.value)}
              />
              <button
                type="button"
                className="button-small"
                aria-label={`Move argument ${index} up`}
                title="Move up"
                disabled={index === 0}
                onClick={() => onChange(moveRow(rows, index, -1))}
              >
                ↑
              </button>
              <button
                type="button"
                className="button-small"
                aria-label={`Move argument ${index} down`}
                title="Move down"
                disabled={index === rows.length - 1}
                onClick={() => onChange(moveRow(rows, index, 1))}
              >
                ↓
              </button>
              <button
                type="button"
                className="button-small"
                aria-label={`Remove argument ${index}`}
                disabled={rows.length <= 1}
                onClick={() => onChange(rows.filter((_, i) => i !== index))}
              >
                Remove
              </button>
              {spaced && (
                <p className="hint argv-hint" id={hintId}>
                  This row is one argument with spaces in it, passed as it is: no shell splits it.
                  {parts > 1 && (
                    <>
                      {" "}
                      <button
                        type="button"
                        className="button-small"
                        onClick={() => onChange(splitRow(rows, index))}
                      >
                        Split into {parts} arguments
                      </button>
                    </>
                  )}
                </p>
              )}
              {rowErrorId && (
                <p className="field-error" id={rowErrorId}>
                  {rowErrors.join("; ")}
                </p>
              )}
            </li>
          );
        })}
      </ol>
      <button
        type="button"
        className="button-small"
        onClick={() => onChange([...rows, ...argRows([""])])}
      >
        Add argument
      </button>
      {errorId && (
        <p className="field-error" id={errorId}>
          {listErrors.join("; ")}
        </p>
      )}
    </fieldset>
  );
}
