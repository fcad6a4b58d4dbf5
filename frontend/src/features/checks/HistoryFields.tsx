// The new-check forms' history section (a service's and a pipeline's alike): where the check
// comes from, so that it becomes a point of its configuration's history, and its gate against
// the last checks of a branch (`--branch`, `--commit`, `--against-history`).

import { type FormErrors, fieldId, messagesFor } from "../../api/validation";
import { Field, NumberField } from "../../components/Field";
import type { HistoryDraft } from "./checkForm";
import { HISTORY_GATE_DEFAULTS } from "./commands";

/** Where the check comes from (a point of its configuration's history) and its gate against one. */
export function HistoryFields<Form extends HistoryDraft>({
  form,
  set,
  errors,
}: {
  form: Form;
  set: <K extends keyof Form>(key: K, value: Form[K]) => void;
  errors: FormErrors;
}) {
  const text = (
    key: "branch" | "commit" | "againstHistory",
    field: string,
    label: string,
    hint: string,
    placeholder: string,
  ) => (
    <Field id={fieldId(field)} label={label} hint={hint} errors={messagesFor(errors, field, true)}>
      {(input) => (
        <input
          {...input}
          className="mono"
          spellCheck={false}
          value={form[key]}
          placeholder={placeholder}
          onChange={(event) => set(key, event.target.value as Form[typeof key])}
        />
      )}
    </Field>
  );
  return (
    <section className="panel" aria-labelledby="check-history-title">
      <h2 id="check-history-title">History (optional)</h2>
      <p className="muted small">
        A check with a branch and a commit becomes a point of its configuration's history (the
        History page). In CI, <code>tracetax check</code> reads them from the environment.
      </p>
      <div className="field-grid">
        {text("branch", "provenance.branch", "Branch", "The branch measured (--branch).", "main")}
        {text(
          "commit",
          "provenance.commit",
          "Commit",
          "The commit measured (--commit).",
          "a1b2c3d",
        )}
      </div>
      <div className="field-grid">
        {text(
          "againstHistory",
          "against_history",
          "Against history",
          `Also fail when an overhead grew against the last N checks of this branch: BRANCH:N (--against-history; N defaults to ${HISTORY_GATE_DEFAULTS.points}).`,
          "main:10",
        )}
        <NumberField
          field="against_history.max_growth_pct"
          label="Max growth (percentage points)"
          hint={`The growth allowed against the history (--history-max-growth-pct). Blank: ${HISTORY_GATE_DEFAULTS.max_growth_pct}.`}
          value={form.maxGrowth}
          onValue={(value) => set("maxGrowth", value as Form["maxGrowth"])}
          errors={errors}
        />
      </div>
    </section>
  );
}
