import type { PipelineVariantInfo } from "../../api/types";
import { type FormErrors, fieldId, messagesFor } from "../../api/validation";
import { Field, NumberField } from "../../components/Field";
import { ErrorSummary } from "../../components/spec-form/ErrorSummary";
import { FormFooter } from "../../components/spec-form/FormFooter";
import { nameFromPath } from "../../components/spec-form/pipelineForm";
import { useEstimate } from "../../components/spec-form/useEstimate";
import { useQueueForm } from "../../components/spec-form/useQueueForm";
import { CLI_PIPELINE_LOAD, PIPELINE_BUDGET_LINES } from "./commands";
import { HistoryFields } from "./HistoryFields";
import {
  CONFIG_FILE,
  initialPipelineCheckForm,
  type PipelineCheckFormState,
  toPipelineCheckRequest,
  type VariantPickDraft,
} from "./pipelineCheckForm";
import { useCreateCheck, usePipelineCheckCommands } from "./useChecks";

/** One side of a pipeline check: a shipped variant, or an overlay file of one's own. */
function VariantPicker({
  side,
  label,
  hint,
  catalog,
  value,
  onChange,
  errors,
}: {
  side: "baseline" | "candidate";
  label: string;
  hint: string;
  catalog: PipelineVariantInfo[];
  value: VariantPickDraft;
  onChange: (value: VariantPickDraft) => void;
  errors: FormErrors;
}) {
  const file = value.pipeline === CONFIG_FILE;
  const description = catalog.find((info) => info.name === value.pipeline)?.description;
  return (
    <div className="variant-pick">
      <Field
        id={fieldId(`${side}.pipeline`)}
        label={label}
        hint={`${hint} ${file ? "An overlay over the lab base, by its path on the backend's host." : (description ?? "")}`.trim()}
        errors={[...messagesFor(errors, side), ...messagesFor(errors, `${side}.pipeline`)]}
      >
        {(input) => (
          <select
            {...input}
            value={value.pipeline}
            onChange={(event) => onChange({ ...value, pipeline: event.target.value })}
          >
            {catalog.map((info) => (
              <option key={info.name} value={info.name}>
                {info.name}
              </option>
            ))}
            <option value={CONFIG_FILE}>A config file of your own…</option>
          </select>
        )}
      </Field>
      {file && (
        <>
          <Field
            id={fieldId(`${side}.config_file`)}
            label={`${label}: config file`}
            errors={messagesFor(errors, `${side}.config_file`)}
          >
            {(input) => (
              <input
                {...input}
                className="mono"
                spellCheck={false}
                value={value.configFile}
                placeholder="/path/on/the/backend/host/my-pipeline.yaml"
                onChange={(event) => onChange({ ...value, configFile: event.target.value })}
              />
            )}
          </Field>
          <Field
            id={fieldId(`${side}.name`)}
            label={`${label}: name`}
            hint="Blank: from the file's name."
            errors={messagesFor(errors, `${side}.name`)}
          >
            {(input) => (
              <input
                {...input}
                className="mono"
                spellCheck={false}
                value={value.name}
                placeholder={value.configFile.trim() ? nameFromPath(value.configFile) : "mine"}
                onChange={(event) => onChange({ ...value, name: event.target.value })}
              />
            )}
          </Field>
        </>
      )}
    </div>
  );
}

const LOAD_FIELDS = [
  {
    key: "spans_per_s",
    field: "load.spans_per_s",
    label: "Spans per second",
    hint: "The constant rate telemetrygen sends (--spans-per-s).",
    step: "any",
  },
  {
    key: "duration_s",
    field: "load.duration_s",
    label: "Measured (s)",
    hint: "Per variant and round (--duration).",
    step: "any",
  },
  {
    key: "rounds",
    field: "rounds",
    label: "Rounds",
    hint: "More rounds, narrower intervals (--rounds).",
    step: "1",
  },
] as const;

/** `/checks/new?subject=collector`: a Collector pipeline's check, as `tracetax check --collector`. */
export function PipelineCheckForm({ catalog }: { catalog: PipelineVariantInfo[] }) {
  const create = useCreateCheck();
  const { form, set, errors, summary, submit } = useQueueForm({
    create,
    initial: (): PipelineCheckFormState => initialPipelineCheckForm(catalog),
    toRequest: toPipelineCheckRequest,
    list: "/checks",
  });
  const base = globalThis.location?.origin ?? "http://127.0.0.1:8000";
  const cli = usePipelineCheckCommands(toPipelineCheckRequest(form), base)?.cli ?? null;
  const estimate = useEstimate({ of: "check", body: toPipelineCheckRequest(form) });

  const budgetFields = (lines: (typeof PIPELINE_BUDGET_LINES)[number][]) =>
    lines.map((line) => (
      <NumberField
        key={line.key}
        field={`budget.${line.key}`}
        label={line.field}
        hint={`CLI: ${line.flag}`}
        step={line.unit === "spans" ? "1" : "any"}
        value={form[line.key]}
        onValue={(value) => set(line.key, value)}
        errors={errors}
      />
    ));

  return (
    <form className="experiment-form" onSubmit={submit} noValidate aria-busy={create.isPending}>
      <ErrorSummary ref={summary} errors={errors} title="The check was not queued" />
      <section className="panel" aria-labelledby="pipeline-check-what-title">
        <h2 id="pipeline-check-what-title">What to compare</h2>
        <div className="field-row">
          <VariantPicker
            side="baseline"
            label="Baseline variant"
            hint="What the candidate is measured against."
            catalog={catalog}
            value={form.baseline}
            onChange={(value) => set("baseline", value)}
            errors={errors}
          />
          <VariantPicker
            side="candidate"
            label="Candidate variant"
            hint="The pipeline under test."
            catalog={catalog}
            value={form.candidate}
            onChange={(value) => set("candidate", value)}
            errors={errors}
          />
        </div>
      </section>

      <section className="panel" aria-labelledby="pipeline-check-load-title">
        <h2 id="pipeline-check-load-title">Load and rounds</h2>
        <div className="field-grid">
          {LOAD_FIELDS.map(({ key, field, label, hint, step }) => (
            <NumberField
              key={key}
              field={field}
              label={label}
              hint={hint}
              step={step}
              value={form[key]}
              onValue={(value) => set(key, value)}
              errors={errors}
            />
          ))}
        </div>
        <p className="muted small">
          Warm-up {CLI_PIPELINE_LOAD.warmup_s} s, a drain of {CLI_PIPELINE_LOAD.drain_s} s and
          traces of {CLI_PIPELINE_LOAD.spans_per_trace} spans, as{" "}
          <code>tracetax check --collector</code> runs them.
        </p>
      </section>

      <section className="panel" aria-labelledby="pipeline-check-budget-title">
        <h2 id="pipeline-check-budget-title">Budget</h2>
        <p className="muted small">
          Blank: not judged. The lab Collector's cores per 10k spans/s and peak RSS are judged like
          a service's lines (paired over the rounds); the candidate's lost spans are counted from
          the span ledger, exactly.
        </p>
        {messagesFor(errors, "budget").length > 0 && (
          <p className="field-error">{messagesFor(errors, "budget").join("; ")}</p>
        )}
        <h3 className="field-group-title">Relative, % of the baseline</h3>
        <div className="field-grid">
          {budgetFields(PIPELINE_BUDGET_LINES.filter((line) => line.unit === "pct"))}
        </div>
        <h3 className="field-group-title">Absolute, added to the baseline</h3>
        <div className="field-grid">
          {budgetFields(
            PIPELINE_BUDGET_LINES.filter((line) => line.unit === "cores" || line.unit === "mib"),
          )}
        </div>
        <h3 className="field-group-title">Spans</h3>
        <div className="field-grid">
          {budgetFields(PIPELINE_BUDGET_LINES.filter((line) => line.unit === "spans"))}
        </div>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={form.strict}
            onChange={(event) => set("strict", event.target.checked)}
          />{" "}
          Strict: judge the point estimate, not the 95% interval (noise can then fail the check)
        </label>
      </section>

      <HistoryFields form={form} set={set} errors={errors} />

      <section className="panel" aria-labelledby="pipeline-check-cli-title">
        <h2 id="pipeline-check-cli-title">The same check from CI</h2>
        {cli ? (
          <>
            <p className="muted small">
              {cli.flags
                ? "What this form queues, as a CI job runs it:"
                : `Its flags cannot say ${cli.reasons.join(", ")}, so it reads the request from a file:`}
            </p>
            <pre className="code-block" data-testid="cli-preview">
              {cli.command}
            </pre>
          </>
        ) : (
          <p className="muted small">
            The command comes once the form is a request the API can read.
          </p>
        )}
      </section>

      <FormFooter
        seconds={estimate?.seconds ?? null}
        detail={<span className="muted"> (2 variants × {form.rounds.trim() || "?"} rounds)</span>}
        needs="the duration and rounds"
        pending={create.isPending}
        action="Run check"
        pendingAction="Queueing…"
      />
    </form>
  );
}
