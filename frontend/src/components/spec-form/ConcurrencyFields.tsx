import { type FormErrors, fieldId, messagesFor } from "../../api/validation";
import { CONCURRENCY_KNOBS, type ConcurrencyKnob } from "../../lib/concurrency";
import { Field, NumberInput } from "../Field";
import type { ConcurrencyDraft } from "./concurrencyForm";
import "./concurrency.css";

interface Props {
  /** The spec's path of these knobs: "configurations.0.concurrency", or "concurrency". */
  field: string;
  /** The knobs the service has (concurrencyForm demoKnobs, commandKnobs), cores among them. */
  knobs: readonly ConcurrencyKnob[];
  draft: ConcurrencyDraft;
  onChange: (patch: Partial<ConcurrencyDraft>) => void;
  /** The API's messages, keyed where the form shows them (concurrencyIssueTarget). */
  errors: FormErrors;
}

/**
 * "Concurrency": a number input per knob the service has (request threads, workers, GOMAXPROCS)
 * and cores; a blank one keeps the service's default and is not sent.
 */
export function ConcurrencyFields({ field, knobs, draft, onChange, errors }: Props) {
  const offered = CONCURRENCY_KNOBS.filter(({ knob }) => knobs.includes(knob));
  const hintId = `${fieldId(field)}-hint`;
  // Messages about the group, or a knob not offered here (the summary links to the group).
  const groupErrors = [
    ...messagesFor(errors, field),
    ...CONCURRENCY_KNOBS.filter(({ knob }) => !knobs.includes(knob)).flatMap(({ knob }) =>
      messagesFor(errors, `${field}.${knob}`).map((message) => `${knob}: ${message}`),
    ),
  ];
  return (
    <fieldset className="concurrency-fields" id={fieldId(field)} aria-describedby={hintId}>
      <legend>Concurrency</legend>
      <p className="hint" id={hintId}>
        {offered.map(({ label, meaning }) => `${label}: ${meaning}`).join("; ")}. Blank: the
        service's default.
      </p>
      <div className="concurrency-grid">
        {offered.map(({ knob, label, min, max }) => {
          const path = `${field}.${knob}`;
          return (
            <Field key={knob} id={fieldId(path)} label={label} errors={messagesFor(errors, path)}>
              {(input) => (
                <NumberInput
                  {...input}
                  inputMode="numeric"
                  step="1"
                  min={min}
                  max={max}
                  placeholder="default"
                  value={draft[knob]}
                  onValue={(value) => onChange({ [knob]: value })}
                />
              )}
            </Field>
          );
        })}
      </div>
      {groupErrors.length > 0 && <p className="field-error">{groupErrors.join("; ")}</p>}
    </fieldset>
  );
}
