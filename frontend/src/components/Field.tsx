import type { InputHTMLAttributes, ReactNode } from "react";
import { type FormErrors, fieldId, messagesFor } from "../api/validation";

interface FieldProps {
  /** The input's id; also the target of the error summary's links. */
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  /** Messages from the API for this field, shown beside it. */
  errors?: string[];
  children: (input: {
    id: string;
    "aria-describedby"?: string;
    "aria-invalid"?: boolean;
  }) => ReactNode;
  className?: string;
}

/** A labelled input with its hint and the API's messages about it. */
export function Field({ id, label, hint, errors = [], children, className }: FieldProps) {
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = errors.length > 0 ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <div
      className={`field${errors.length > 0 ? " field-invalid" : ""}${className ? ` ${className}` : ""}`}
    >
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        "aria-describedby": describedBy,
        "aria-invalid": errors.length > 0 || undefined,
      })}
      {hint && (
        <p id={hintId} className="hint">
          {hint}
        </p>
      )}
      {errorId && (
        <p id={errorId} className="field-error">
          {errors.join("; ")}
        </p>
      )}
    </div>
  );
}

type NumberInputProps = Omit<InputHTMLAttributes<HTMLInputElement>, "onChange" | "value"> & {
  value: string;
  onValue: (value: string) => void;
};

/** A number input that keeps its text (the API validates the value). */
export function NumberInput({ value, onValue, ...rest }: NumberInputProps) {
  return (
    <input
      type="number"
      inputMode="decimal"
      value={value}
      onChange={(event) => onValue(event.target.value)}
      {...rest}
    />
  );
}

/**
 * A number input for a request's field path ("load.rate"), with the API's messages about it and
 * about anything below it.
 */
export function NumberField({
  field,
  label,
  hint,
  step = "any",
  value,
  onValue,
  errors,
}: {
  field: string;
  label: ReactNode;
  hint?: ReactNode;
  step?: string;
  value: string;
  onValue: (value: string) => void;
  errors: FormErrors;
}) {
  return (
    <Field id={fieldId(field)} label={label} hint={hint} errors={messagesFor(errors, field, true)}>
      {(input) => <NumberInput {...input} step={step} value={value} onValue={onValue} />}
    </Field>
  );
}
