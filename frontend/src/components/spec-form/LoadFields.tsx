import type { ReactNode } from "react";
import type { Preset } from "../../api/types";
import { type FormErrors, fieldId } from "../../api/validation";
import { Field, NumberField } from "../Field";
import type { LoadDraft } from "./loadForm";

const FIELDS: {
  key: keyof LoadDraft;
  field: string;
  label: string;
  hint?: string;
  step: string;
}[] = [
  {
    key: "rate",
    field: "load.rate",
    label: "Rate (req/s)",
    hint: "Open-model arrival rate.",
    step: "any",
  },
  {
    key: "duration_s",
    field: "load.duration_s",
    label: "Duration (s)",
    hint: "Measured per round.",
    step: "any",
  },
  { key: "rounds", field: "rounds", label: "Rounds", step: "1" },
  { key: "iters", field: "load.query.iters", label: "Work per request (iters)", step: "1" },
  { key: "spans", field: "load.query.spans", label: "Spans per request", step: "1" },
];

/**
 * The load and rounds of a check or a calibration (the flags `tracetax check` and `tracetax
 * calibrate` take), with a note on the load they fix.
 */
export function LoadFields({
  titleId,
  draft,
  onChange,
  errors,
  roundsHint,
  children,
}: {
  titleId: string;
  draft: LoadDraft;
  onChange: (key: keyof LoadDraft, value: string) => void;
  errors: FormErrors;
  roundsHint: string;
  /** What the command fixes: warm-up, no max-throughput phase. */
  children: ReactNode;
}) {
  return (
    <section className="panel" aria-labelledby={titleId}>
      <h2 id={titleId}>Load and rounds</h2>
      <div className="field-grid">
        {FIELDS.map(({ key, field, label, hint, step }) => (
          <NumberField
            key={key}
            field={field}
            label={label}
            hint={key === "rounds" ? roundsHint : hint}
            step={step}
            value={draft[key]}
            onValue={(value) => onChange(key, value)}
            errors={errors}
          />
        ))}
      </div>
      <p className="muted small">{children}</p>
    </section>
  );
}

/** A preset to run, with what it is beside it. */
export function PresetSelect({
  field,
  label,
  hint,
  presets,
  value,
  onChange,
  errors,
}: {
  field: string;
  label: string;
  hint: string;
  presets: Preset[];
  value: string;
  onChange: (value: string) => void;
  errors: string[];
}) {
  return (
    <Field
      id={fieldId(field)}
      label={label}
      hint={`${hint} ${presets.find((p) => p.name === value)?.description ?? ""}`.trim()}
      errors={errors}
    >
      {(input) => (
        <select {...input} value={value} onChange={(event) => onChange(event.target.value)}>
          {presets.map((preset) => (
            <option key={preset.name} value={preset.name}>
              {preset.name}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
