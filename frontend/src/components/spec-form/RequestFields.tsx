import { type FormErrors, fieldId, messagesFor } from "../../api/validation";
import { Field } from "../Field";
import {
  BODYLESS_METHODS,
  type HeaderRow,
  HTTP_METHODS,
  type PathRow,
  parseNumber,
  type RequestDraft,
  uid,
} from "./form";
import "./yourService.css";

interface Props {
  request: RequestDraft;
  onChange: (patch: Partial<RequestDraft>) => void;
  /** The API's messages, keyed where the form shows them (errors.ts placeErrors). */
  errors: FormErrors;
}

/** Each path's share of the requests, "50 %", or "" while a weight is not a usable number. */
export function pathShares(rows: readonly PathRow[]): string[] {
  const weights = rows.map((row) => parseNumber(row.weight) ?? 1);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const usable = weights.every((weight) => Number.isFinite(weight) && weight > 0);
  return weights.map((weight) =>
    usable && total > 0 ? `${Math.round((weight / total) * 100)} %` : "",
  );
}

function ErrorLine({ id, messages }: { id: string; messages: string[] }) {
  if (messages.length === 0) return null;
  return (
    <p className="field-error" id={id}>
      {messages.join("; ")}
    </p>
  );
}

/** What every request of the load is for a service of your own: method, paths, headers, body. */
export function RequestFields({ request, onChange, errors }: Props) {
  const bodyless = BODYLESS_METHODS.includes(request.method);
  const shares = pathShares(request.paths);
  const setPath = (index: number, patch: Partial<PathRow>) =>
    onChange({ paths: request.paths.map((row, i) => (i === index ? { ...row, ...patch } : row)) });
  const setHeader = (index: number, patch: Partial<HeaderRow>) =>
    onChange({
      headers: request.headers.map((row, i) => (i === index ? { ...row, ...patch } : row)),
    });
  const pathsErrors = messagesFor(errors, "load.paths");
  const headersErrors = messagesFor(errors, "load.headers");
  return (
    <div className="request-fields">
      <div className="field-grid">
        <Field
          id={fieldId("load.method")}
          label="Method"
          errors={messagesFor(errors, "load.method")}
        >
          {(input) => (
            <select
              {...input}
              value={request.method}
              onChange={(event) => onChange({ method: event.target.value })}
            >
              {HTTP_METHODS.map((method) => (
                <option key={method} value={method}>
                  {method}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>

      <fieldset
        className="paths-editor"
        id={fieldId("load.paths")}
        aria-describedby={pathsErrors.length > 0 ? `${fieldId("load.paths")}-error` : undefined}
      >
        <legend>Paths</legend>
        <p className="hint">
          Each request goes to one of these paths (a query string may follow), chosen at random in
          proportion to its weight (1 to 100).
        </p>
        <ol className="path-rows">
          {request.paths.map((row, index) => {
            const pathField = `load.paths.${index}.path`;
            const weightField = `load.paths.${index}.weight`;
            const pathErrors = messagesFor(errors, pathField);
            const weightErrors = messagesFor(errors, weightField);
            return (
              <li key={row.uid} className="path-row">
                <input
                  id={fieldId(pathField)}
                  aria-label={`Path ${index + 1}`}
                  className="mono"
                  value={row.path}
                  placeholder="/items?id=1"
                  spellCheck={false}
                  autoCapitalize="off"
                  aria-invalid={pathErrors.length > 0 || undefined}
                  aria-describedby={
                    pathErrors.length > 0 ? `${fieldId(pathField)}-error` : undefined
                  }
                  onChange={(event) => setPath(index, { path: event.target.value })}
                />
                <input
                  id={fieldId(weightField)}
                  aria-label={`Weight of path ${index + 1}`}
                  type="number"
                  inputMode="numeric"
                  step="1"
                  min="1"
                  max="100"
                  value={row.weight}
                  aria-invalid={weightErrors.length > 0 || undefined}
                  aria-describedby={
                    weightErrors.length > 0 ? `${fieldId(weightField)}-error` : undefined
                  }
                  onChange={(event) => setPath(index, { weight: event.target.value })}
                />
                <span className="muted small path-share" title="Share of the requests">
                  {shares[index]}
                </span>
                <button
                  type="button"
                  className="button-small"
                  aria-label={`Remove path ${index + 1}`}
                  disabled={request.paths.length <= 1}
                  onClick={() => onChange({ paths: request.paths.filter((_, i) => i !== index) })}
                >
                  Remove
                </button>
                <ErrorLine id={`${fieldId(pathField)}-error`} messages={pathErrors} />
                <ErrorLine id={`${fieldId(weightField)}-error`} messages={weightErrors} />
              </li>
            );
          })}
        </ol>
        <button
          type="button"
          className="button-small"
          disabled={request.paths.length >= 20}
          onClick={() =>
            onChange({ paths: [...request.paths, { uid: uid("path"), path: "/", weight: "1" }] })
          }
        >
          Add path
        </button>
        <ErrorLine id={`${fieldId("load.paths")}-error`} messages={pathsErrors} />
      </fieldset>

      <fieldset
        className="headers-editor"
        id={fieldId("load.headers")}
        aria-describedby={headersErrors.length > 0 ? `${fieldId("load.headers")}-error` : undefined}
      >
        <legend>Headers</legend>
        {request.headers.length === 0 && (
          <p className="muted small">None besides what the load generator sends.</p>
        )}
        {request.headers.length > 0 && (
          <ol className="header-rows">
            {request.headers.map((row, index) => (
              <li key={row.uid} className="header-row">
                <input
                  aria-label={`Header ${index + 1} name`}
                  className="mono"
                  value={row.name}
                  placeholder="Content-Type"
                  spellCheck={false}
                  autoCapitalize="off"
                  aria-invalid={headersErrors.length > 0 || undefined}
                  onChange={(event) => setHeader(index, { name: event.target.value })}
                />
                <span aria-hidden="true">:</span>
                <input
                  aria-label={`Header ${index + 1} value`}
                  className="mono"
                  value={row.value}
                  spellCheck={false}
                  onChange={(event) => setHeader(index, { value: event.target.value })}
                />
                <button
                  type="button"
                  className="button-small"
                  aria-label={`Remove header ${row.name || index + 1}`}
                  onClick={() =>
                    onChange({ headers: request.headers.filter((_, i) => i !== index) })
                  }
                >
                  Remove
                </button>
              </li>
            ))}
          </ol>
        )}
        <button
          type="button"
          className="button-small"
          onClick={() =>
            onChange({ headers: [...request.headers, { uid: uid("header"), name: "", value: "" }] })
          }
        >
          Add header
        </button>
        <ErrorLine id={`${fieldId("load.headers")}-error`} messages={headersErrors} />
      </fieldset>

      <Field
        id={fieldId("load.body")}
        label="Body"
        hint={
          bodyless
            ? `${request.method} requests carry no body: choose POST, PUT, PATCH, DELETE or OPTIONS to send one.`
            : "Sent with every request; empty: none."
        }
        errors={messagesFor(errors, "load.body")}
      >
        {(input) => (
          <textarea
            {...input}
            className="mono"
            rows={4}
            value={request.body}
            disabled={bodyless}
            spellCheck={false}
            onChange={(event) => onChange({ body: event.target.value })}
          />
        )}
      </Field>
    </div>
  );
}
