import { OPENAPI_EXTENSIONS } from "../../api/openapiConstants";
import { fieldId } from "../../api/validation";
import { type EnvRow, uid } from "./form";
import "./specForm.css";

/** Common OpenTelemetry variables, offered as suggestions (any OTEL_* name is accepted but those naming
 * files, code or processes on the backend's machine: backend/tracetax/spec/otel_env.py), as the
 * backend publishes them (ConfigurationSpec's `x-otel-suggestions`). */
export const OTEL_SUGGESTIONS: readonly string[] =
  OPENAPI_EXTENSIONS.ConfigurationSpec["x-otel-suggestions"];
export const OTEL_DATALIST_ID = "otel-variables";

interface Props {
  /** Field path of the env map, e.g. "configurations.1.env". */
  field: string;
  label: string;
  rows: EnvRow[];
  onChange: (rows: EnvRow[]) => void;
  errors: string[];
  /** What every name starts with: OTEL_ for an SDK's overrides, LAB_ for a pipeline's settings. */
  prefix?: string;
  /** The id of the datalist suggesting names. */
  suggestions?: string;
  /** Shown while there are no rows. */
  empty?: string;
}

/** Key–value rows for a configuration's OTEL_* overrides (or other variables): edit, add, remove. */
export function EnvEditor({
  field,
  label,
  rows,
  onChange,
  errors,
  prefix = "OTEL_",
  suggestions = OTEL_DATALIST_ID,
  empty = "No overrides: the SDK's defaults apply.",
}: Props) {
  const update = (index: number, patch: Partial<EnvRow>) =>
    onChange(rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  const id = fieldId(field);
  const errorId = errors.length > 0 ? `${id}-error` : undefined;
  return (
    <fieldset className="env-editor" aria-describedby={errorId}>
      <legend>{label}</legend>
      {rows.length === 0 && <p className="muted small">{empty}</p>}
      {rows.length > 0 && (
        <div className="env-rows">
          {rows.map((row, index) => (
            <div className="env-row" key={row.uid}>
              <input
                id={index === 0 ? id : undefined}
                aria-label={`Variable ${index + 1} name`}
                className="mono"
                list={suggestions}
                placeholder={`${prefix}…`}
                value={row.key}
                spellCheck={false}
                autoCapitalize="characters"
                aria-invalid={errors.length > 0 || undefined}
                onChange={(event) => update(index, { key: event.target.value })}
              />
              <span aria-hidden="true">=</span>
              <input
                aria-label={`Variable ${index + 1} value`}
                className="mono"
                value={row.value}
                spellCheck={false}
                onChange={(event) => update(index, { value: event.target.value })}
              />
              <button
                type="button"
                className="button-small"
                aria-label={`Remove ${row.key || `variable ${index + 1}`}`}
                onClick={() => onChange(rows.filter((_, i) => i !== index))}
              >
                Remove
              </button>
            </div>
          ))}
        </div>
      )}
      <button
        type="button"
        className="button-small"
        id={rows.length === 0 ? id : undefined}
        onClick={() => onChange([...rows, { uid: uid("env"), key: prefix, value: "" }])}
      >
        Add variable
      </button>
      {errorId && (
        <p id={errorId} className="field-error">
          {errors.join("; ")}
        </p>
      )}
    </fieldset>
  );
}
