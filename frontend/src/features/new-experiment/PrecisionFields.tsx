import { type FormErrors, fieldId, messagesFor } from "../../api/validation";
import { NumberField } from "../../components/Field";
import {
  PRECISION_METRIC_LABELS,
  PRECISION_METRICS,
  type PrecisionDraft,
} from "../../components/spec-form/form";
import "./newExperiment.css";

/**
 * "Add rounds until precise" (the spec's optional `precision`): which metrics must reach the
 * half-width, and the wall time the experiment may take at most. Off: the rounds above, no more.
 */
export function PrecisionFields({
  draft,
  onChange,
  errors,
}: {
  draft: PrecisionDraft;
  onChange: (patch: Partial<PrecisionDraft>) => void;
  errors: FormErrors;
}) {
  const toggle = (metric: (typeof PRECISION_METRICS)[number], on: boolean) =>
    onChange({
      metrics: on ? [...draft.metrics, metric] : draft.metrics.filter((m) => m !== metric),
    });
  const metricErrors = messagesFor(errors, "precision.metrics", true);
  const wholeErrors = messagesFor(errors, "precision");
  return (
    <section className="panel" aria-labelledby="precision-title">
      <h2 id="precision-title">Precision (optional)</h2>
      <label className="checkbox" htmlFor={fieldId("precision")}>
        <input
          id={fieldId("precision")}
          type="checkbox"
          checked={draft.enabled}
          aria-describedby={`${fieldId("precision")}-hint`}
          onChange={(event) => onChange({ enabled: event.target.checked })}
        />
        Add rounds until the answer is precise
      </label>
      <p className="hint" id={`${fieldId("precision")}-hint`}>
        After the rounds above, rounds are added until every metric ticked has its change known to
        within ± the half-width, or the wall time is spent; the results say which. The intervals
        stay valid however many rounds are added (and are a little wider than a fixed number of
        rounds would give).
      </p>
      {wholeErrors.length > 0 && <p className="field-error">{wholeErrors.join("; ")}</p>}
      {draft.enabled && (
        <>
          <fieldset className="checkbox-group" id={fieldId("precision.metrics")}>
            <legend>Metrics</legend>
            {PRECISION_METRICS.map((metric) => (
              <label key={metric} className="checkbox">
                <input
                  type="checkbox"
                  checked={draft.metrics.includes(metric)}
                  onChange={(event) => toggle(metric, event.target.checked)}
                />
                {PRECISION_METRIC_LABELS[metric]}
              </label>
            ))}
            {metricErrors.length > 0 && <p className="field-error">{metricErrors.join("; ")}</p>}
          </fieldset>
          <div className="field-grid">
            <NumberField
              field="precision.half_width_pct"
              label="Half-width (±%)"
              hint="How narrow every ticked metric's relative interval must be."
              value={draft.half_width_pct}
              onValue={(half_width_pct) => onChange({ half_width_pct })}
              errors={errors}
            />
            <NumberField
              field="precision.max_wall_time_s"
              label="Max wall time (s)"
              hint="The whole experiment's budget: rounds are added while the next one fits."
              value={draft.max_wall_time_s}
              onValue={(max_wall_time_s) => onChange({ max_wall_time_s })}
              errors={errors}
            />
          </div>
        </>
      )}
    </section>
  );
}
