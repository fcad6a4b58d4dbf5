import { type FormErrors, fieldId, messagesFor } from "../../api/validation";
import { Field, NumberInput } from "../Field";
import { ArgvEditor } from "./ArgvEditor";
import {
  COMMAND_LANGUAGES,
  type CommandDraft,
  type CommandLanguage,
  SPEC_DEFAULTS,
  zeroCodeLaunch,
} from "./form";
import "./yourService.css";

interface Props {
  draft: CommandDraft;
  onChange: (patch: Partial<CommandDraft>) => void;
  /** The language changes the launches the configurations can use: the page handles it. */
  onLanguage: (language: CommandLanguage) => void;
  /** The API's messages, keyed where the form shows them (errors.ts placeErrors). */
  errors: FormErrors;
}

type TextKey = Exclude<keyof CommandDraft, "argv" | "language">;

/** "Your service": the command to run, where it listens and what it is written in. */
export function YourServiceFields({ draft, onChange, onLanguage, errors }: Props) {
  const text = (
    key: TextKey,
    label: string,
    {
      hint,
      placeholder,
      number = false,
    }: { hint?: string; placeholder?: string; number?: boolean },
  ) => {
    const field = `service.${key}`;
    return (
      <Field
        key={key}
        id={fieldId(field)}
        label={label}
        hint={hint}
        errors={messagesFor(errors, field)}
      >
        {(input) =>
          number ? (
            <NumberInput
              {...input}
              step={key === "startup_timeout_s" || key === "spans_per_request" ? "any" : "1"}
              placeholder={placeholder}
              value={draft[key]}
              onValue={(value) => onChange({ [key]: value })}
            />
          ) : (
            <input
              {...input}
              className="mono"
              value={draft[key]}
              placeholder={placeholder}
              spellCheck={false}
              autoCapitalize="off"
              onChange={(event) => onChange({ [key]: event.target.value })}
            />
          )
        }
      </Field>
    );
  };
  return (
    // biome-ignore lint/a11y/useSemanticElements: a group inside the form's own fieldset, framed by .your-service rather than the fieldset style
    <div className="your-service" aria-label="Your service" role="group">
      <ArgvEditor rows={draft.argv} onChange={(argv) => onChange({ argv })} errors={errors} />
      <div className="field-grid">
        {text("cwd", "Working directory", {
          hint: "Blank: the backend's own. A leading ~ is the backend's home.",
          placeholder: "~/my-service",
        })}
        {text("port", "Port", {
          hint: "Where it listens for the load. Leave blank and write {port} in its arguments to let TraceTax pick one per instance, so its configurations run side by side.",
          number: true,
        })}
        {text("health_path", "Health path", {
          hint: "Answers 2xx once it is ready.",
          placeholder: SPEC_DEFAULTS.health_path,
        })}
        {text("service_name", "Service name", {
          hint: "OTEL_SERVICE_NAME in every configuration.",
          placeholder: SPEC_DEFAULTS.service_name,
        })}
        <Field
          id={fieldId("service.language")}
          label="Language"
          hint={
            zeroCodeLaunch(draft.language) === null
              ? "No zero-code instrumentation: as it is, with or without its own SDK."
              : `Zero-code: ${zeroCodeLaunch(draft.language)}.`
          }
          errors={messagesFor(errors, "service.language")}
        >
          {(input) => (
            <select
              {...input}
              value={draft.language}
              onChange={(event) => onLanguage(event.target.value as CommandLanguage)}
            >
              {COMMAND_LANGUAGES.map(({ value, label }) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
        {text("startup_timeout_s", "Startup timeout (s)", {
          hint: "How long it may take to answer its health path.",
          number: true,
        })}
        {text("spans_per_request", "Spans per request (optional)", {
          hint: "If you know it: the span ledger's expected count when the SDK reports none.",
          number: true,
        })}
        {text("pprof_port", "pprof port (optional)", {
          hint: "A Go service's net/http/pprof port, for its stack samples.",
          number: true,
        })}
      </div>
    </div>
  );
}
