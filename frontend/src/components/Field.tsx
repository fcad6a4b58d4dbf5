import type { InputHTMLAttributes, ReactNode } from "react";

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
