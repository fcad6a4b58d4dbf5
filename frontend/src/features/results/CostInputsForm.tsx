import { type FormEvent, useState } from "react";
import { errorMessage } from "../../api/client";
import { useExperiments } from "../../api/queries";
import { COLLECTOR_SERVICE, type CostInputs, isPipelineSummary } from "../../api/types";
import { type FormErrors, fieldId, messagesFor } from "../../api/validation";
import { Field, NumberInput } from "../../components/Field";
import {
  COST_INPUT_GROUPS,
  COST_INPUTS,
  type CostInputKey,
  type CostParamKey,
  type CostParams,
} from "../../components/results/costInputs";
import "./serviceResults.css";

/** What the API said of the inputs: the defaults it filled in, and where each comes from. */
export interface KnownInputs {
  defaults: Partial<CostInputs>;
  sources: Record<string, string>;
}

const RATE_TITLE = "Your service's request rate: every figure scales with it";

/** The API's 422 messages about a query parameter ("query.retention_days"). */
const messagesOf = (errors: FormErrors, key: CostParamKey) => messagesFor(errors, `query.${key}`);

/**
 * The cost inputs, each with its unit and its default's source (as a tooltip, and listed under
 * the form). A value is sent when its field loses focus or the form is submitted; an empty
 * field goes back to the default. The API validates: its 422 shows beside the field.
 */
export function CostInputsForm({
  params,
  known,
  errors,
  recalculating,
  onParams,
  onReset,
}: {
  /** The inputs in the URL (absent: the API's default). */
  params: CostParams;
  known: KnownInputs;
  errors: FormErrors;
  recalculating: boolean;
  onParams: (values: Partial<Record<CostParamKey, string | null>>) => void;
  onReset: () => void;
}) {
  // What is typed and not sent yet, per input.
  const [drafts, setDrafts] = useState<Partial<Record<CostInputKey, string>>>({});
  const edited = Object.keys(params).length > 0;

  const send = (keys: CostInputKey[]) => {
    const pending = keys.filter((key) => drafts[key] !== undefined);
    if (pending.length === 0) return;
    onParams(Object.fromEntries(pending.map((key) => [key, drafts[key] ?? null])));
    setDrafts((current) => {
      const next = { ...current };
      for (const key of pending) delete next[key];
      return next;
    });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send(COST_INPUTS.map((input) => input.key));
  };
  const reset = () => {
    setDrafts({});
    onReset();
  };
  const shown = (key: CostInputKey) => {
    const fallback = known.defaults[key];
    return drafts[key] ?? params[key] ?? (fallback == null ? "" : String(fallback));
  };
  const titleOf = (key: CostInputKey) => {
    if (key === "requests_per_s") return RATE_TITLE;
    const source = known.sources[key];
    return source ? `Default from ${source}` : undefined;
  };

  return (
    <form className="cost-inputs" onSubmit={submit} noValidate aria-label="Cost inputs">
      {COST_INPUT_GROUPS.map((group) => (
        <fieldset key={group.title}>
          <legend className="field-group-title">{group.title}</legend>
          <div className="field-grid">
            {group.inputs.map(({ key, label, unit }) => {
              const fallback = known.defaults[key];
              return (
                <Field
                  key={key}
                  id={fieldId(`cost.${key}`)}
                  label={
                    <span title={titleOf(key)}>
                      {label} <span className="unit">({unit})</span>
                    </span>
                  }
                  hint={
                    params[key] !== undefined && fallback != null
                      ? `edited; default ${formatDefault(fallback)}`
                      : undefined
                  }
                  errors={messagesOf(errors, key)}
                >
                  {(input) => (
                    <NumberInput
                      {...input}
                      name={key}
                      step="any"
                      min={0}
                      placeholder="default"
                      title={titleOf(key)}
                      value={shown(key)}
                      onValue={(value) => setDrafts((current) => ({ ...current, [key]: value }))}
                      onBlur={() => send([key])}
                    />
                  )}
                </Field>
              );
            })}
          </div>
        </fieldset>
      ))}
      <CollectorSource params={params} errors={errors} onParams={onParams} />
      <div className="cost-actions">
        <button type="submit" className="button-small">
          Recalculate
        </button>
        <button type="button" className="button-small" onClick={reset} disabled={!edited}>
          Reset to defaults
        </button>
        <span className="small muted" aria-live="polite">
          {recalculating ? "Recalculating…" : ""}
        </span>
      </div>
      {Object.keys(known.sources).length > 0 && (
        <details className="cost-sources small">
          <summary>Where the defaults come from</summary>
          <dl>
            {COST_INPUTS.filter(({ key }) => known.sources[key]).map(({ key, label }) => (
              <div key={key}>
                <dt>{label}</dt>
                <dd>{known.sources[key]}</dd>
              </div>
            ))}
          </dl>
        </details>
      )}
    </form>
  );
}

const formatDefault = (value: number) =>
  value.toLocaleString("en-US", { maximumFractionDigits: 6 });

/**
 * Where the Collector's cores per span come from: the documented figure, or a completed
 * Collector pipeline experiment's variant (its baseline unless another is chosen).
 */
function CollectorSource({
  params,
  errors,
  onParams,
}: {
  params: CostParams;
  errors: FormErrors;
  onParams: (values: Partial<Record<CostParamKey, string | null>>) => void;
}) {
  const experiments = useExperiments(COLLECTOR_SERVICE);
  const pipelines = (experiments.data ?? []).filter(
    (e) => isPipelineSummary(e) && e.status === "completed",
  );
  const chosen = params.pipeline_experiment;
  const listed = pipelines.find((p) => p.id === chosen);
  const variant = params.pipeline_variant;
  const variants = listed?.configurations ?? [];
  return (
    <fieldset>
      <legend className="field-group-title">Collector</legend>
      <div className="field-grid">
        <Field
          id={fieldId("cost.pipeline_experiment")}
          label="Cores per span from"
          hint={
            experiments.isError
              ? `Could not list the pipeline experiments: ${errorMessage(experiments.error)}`
              : undefined
          }
          errors={messagesOf(errors, "pipeline_experiment")}
        >
          {(input) => (
            <select
              {...input}
              value={chosen ?? ""}
              onChange={(event) => onParams({ pipeline_experiment: event.target.value || null })}
            >
              <option value="">the documented figure</option>
              {chosen && !listed && <option value={chosen}>{chosen}</option>}
              {pipelines.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name
                    ? `${p.name} (${p.id.slice(0, 8)})`
                    : `pipeline experiment ${p.id.slice(0, 8)}`}
                </option>
              ))}
            </select>
          )}
        </Field>
        {chosen && (
          <Field
            id={fieldId("cost.pipeline_variant")}
            label="Variant"
            errors={messagesOf(errors, "pipeline_variant")}
          >
            {(input) => (
              <select
                {...input}
                value={variant ?? ""}
                onChange={(event) => onParams({ pipeline_variant: event.target.value || null })}
              >
                <option value="">
                  {listed ? `its baseline, ${listed.baseline}` : "its baseline"}
                </option>
                {variant && !variants.includes(variant) && (
                  <option value={variant}>{variant}</option>
                )}
                {variants.map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
      </div>
    </fieldset>
  );
}
