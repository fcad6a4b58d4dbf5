import { Link, useSearchParams } from "react-router";
import { COLLECTOR_SUBJECT, type Preset, type ServiceInfo } from "../../api/types";
import { fieldId, messagesFor } from "../../api/validation";
import { CatalogGate } from "../../components/CatalogGate";
import { Field, NumberField } from "../../components/Field";
import { QueryStates } from "../../components/States";
import { ErrorSummary } from "../../components/spec-form/ErrorSummary";
import { FormFooter } from "../../components/spec-form/FormFooter";
import { presetsFor } from "../../components/spec-form/form";
import { LoadFields, PresetSelect } from "../../components/spec-form/LoadFields";
import { useEstimate } from "../../components/spec-form/useEstimate";
import { usePipelines } from "../../components/spec-form/usePipelines";
import { useQueueForm } from "../../components/spec-form/useQueueForm";
import { formatDuration } from "../../lib/format";
import { useDocumentTitle } from "../../lib/useDocumentTitle";
import { type CheckFormState, initialCheckForm, toCheckRequest } from "./checkForm";
import { BUDGET_LINES, CLI_LOAD, COST_RATE_FLAG } from "./commands";
import { HistoryFields } from "./HistoryFields";
import { PipelineCheckForm } from "./PipelineCheckForm";
import { useCreateCheck } from "./useChecks";
import "./checks.css";

/**
 * `/checks/new`: queue a CI check from the UI, as `tracetax check` would: of a service's SDK
 * configuration, or (`?subject=collector`) of a Collector pipeline, as `--collector` would.
 */
export function NewCheckPage() {
  useDocumentTitle("New check");
  const [params, setParams] = useSearchParams();
  const pipeline = params.get("subject") === COLLECTOR_SUBJECT;
  return (
    <>
      <div className="page-head">
        <h1>New check</h1>
        <Link to="/checks">Back to the checks</Link>
      </div>
      <fieldset className="check-mode">
        <legend className="visually-hidden">What the check measures</legend>
        <label className="checkbox">
          <input
            type="radio"
            name="check-subject"
            checked={!pipeline}
            onChange={() => setParams({}, { replace: true })}
          />{" "}
          A service's SDK configuration
        </label>
        <label className="checkbox">
          <input
            type="radio"
            name="check-subject"
            checked={pipeline}
            onChange={() => setParams({ subject: COLLECTOR_SUBJECT }, { replace: true })}
          />{" "}
          A Collector pipeline
        </label>
      </fieldset>
      {pipeline ? (
        <PipelineCheckGate />
      ) : (
        <CatalogGate purpose="check">
          {(services, presets) => <CheckForm services={services} presets={presets} />}
        </CatalogGate>
      )}
    </>
  );
}

/** The pipeline form, once the shipped variants it offers are there. */
function PipelineCheckGate() {
  const pipelines = usePipelines();
  return (
    <QueryStates
      query={pipelines}
      loading="Loading the pipeline variants…"
      error="Could not load the pipeline variants"
    >
      {(catalog) => <PipelineCheckForm catalog={catalog} />}
    </QueryStates>
  );
}

function CheckForm({ services, presets }: { services: ServiceInfo[]; presets: Preset[] }) {
  const create = useCreateCheck();
  const { form, set, errors, summary, submit } = useQueueForm({
    create,
    initial: (): CheckFormState =>
      initialCheckForm(
        services.map((s) => s.language),
        presets,
      ),
    toRequest: toCheckRequest,
    list: "/checks",
  });
  const available = presetsFor(presets, form.language);
  const estimate = useEstimate({ of: "check", body: toCheckRequest(form) });

  const presetSelect = (key: "baseline" | "candidate", label: string, hint: string) => (
    <PresetSelect
      field={key}
      label={label}
      hint={hint}
      presets={available}
      value={form[key]}
      onChange={(value) => set(key, value)}
      errors={messagesFor(errors, key, true).filter((m) => !m.startsWith("env"))}
    />
  );

  const budgetFields = (lines: (typeof BUDGET_LINES)[number][]) =>
    lines.map((line) => (
      <NumberField
        key={line.key}
        field={`budget.${line.key}`}
        label={line.field}
        hint={`CLI: ${line.flag}`}
        value={form[line.key]}
        onValue={(value) => set(line.key, value)}
        errors={errors}
      />
    ));

  return (
    <form className="experiment-form" onSubmit={submit} noValidate aria-busy={create.isPending}>
      <ErrorSummary ref={summary} errors={errors} title="The check was not queued" />
      <section className="panel" aria-labelledby="check-what-title">
        <h2 id="check-what-title">What to compare</h2>
        <div className="field-row">
          <Field
            id={fieldId("service.language")}
            label="Service"
            hint={services.find((service) => service.language === form.language)?.framework}
            errors={messagesFor(errors, "service", true)}
          >
            {(input) => (
              <select
                {...input}
                value={form.language}
                onChange={(event) => set("language", event.target.value)}
              >
                {services.map((service) => (
                  <option key={service.language} value={service.language}>
                    {service.language}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {presetSelect("baseline", "Baseline", "What the candidate is measured against.")}
          {presetSelect("candidate", "Candidate", "The configuration under test.")}
        </div>
        <Field
          id={fieldId("candidate.env")}
          label="Candidate variables (optional)"
          hint="OTEL_*=value, one per line, over the candidate preset's own (--candidate-env)."
          errors={messagesFor(errors, "candidate.env", true)}
        >
          {(input) => (
            <textarea
              {...input}
              className="mono"
              rows={3}
              spellCheck={false}
              value={form.candidateEnv}
              placeholder="OTEL_BSP_MAX_QUEUE_SIZE=4096"
              onChange={(event) => set("candidateEnv", event.target.value)}
            />
          )}
        </Field>
      </section>

      <LoadFields
        titleId="check-load-title"
        draft={form}
        onChange={set}
        errors={errors}
        roundsHint="More rounds, narrower intervals."
      >
        Warm-up {CLI_LOAD.warmup_s} s and no max-throughput phase, as <code>tracetax check</code>{" "}
        runs them.
      </LoadFields>

      <section className="panel" aria-labelledby="check-budget-title">
        <h2 id="check-budget-title">Budget</h2>
        <p className="muted small">
          Blank: not judged. A line fails when the change is over budget beyond noise, passes when
          its whole 95% interval is within budget, and is inconclusive otherwise (it then says how
          many rounds would tell). A relative budget tighter than a stored calibration of this
          service, baseline and load can resolve is refused beside its field.
        </p>
        <h3 className="field-group-title">Relative, % of the baseline</h3>
        <div className="field-grid">
          {budgetFields(BUDGET_LINES.filter((line) => line.unit === "pct"))}
        </div>
        <h3 className="field-group-title">Absolute, added to the baseline</h3>
        <div className="field-grid">
          {budgetFields(BUDGET_LINES.filter((line) => line.unit === "ms" || line.unit === "us"))}
        </div>
        <h3 className="field-group-title">Telemetry</h3>
        <div className="field-grid">
          <NumberField
            field="budget.max_dropped_spans"
            label="Max dropped spans"
            hint="Spans lost inside the SDK (--max-dropped-spans)."
            step="1"
            value={form.max_dropped_spans}
            onValue={(value) => set("max_dropped_spans", value)}
            errors={errors}
          />
        </div>
        <h3 className="field-group-title">Cost, the candidate's own</h3>
        <div className="field-grid">
          {budgetFields(
            BUDGET_LINES.filter((line) => line.unit === "bytes" || line.unit === "usd"),
          )}
          <NumberField
            field="budget.cost.requests_per_s"
            label="Traffic $/month is priced at (req/s)"
            hint={`Blank: 100 req/s. Other prices are docs/cost.md's defaults (${COST_RATE_FLAG}).`}
            value={form.costRate}
            onValue={(value) => set("costRate", value)}
            errors={errors}
          />
        </div>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={form.strict}
            onChange={(event) => set("strict", event.target.checked)}
          />{" "}
          Strict: judge the point estimate, not the 95% interval (noise can then fail the check)
        </label>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={form.sampleStacks}
            onChange={(event) => set("sampleStacks", event.target.checked)}
          />{" "}
          Sample stacks: show where the added cost went (a differential flame graph;
          --sample-stacks)
        </label>
        <div className="field-grid">
          <NumberField
            field="max_wall_time_s"
            label="Max wall time (s, optional)"
            hint="Buy rounds while a line is inconclusive: after the rounds above, add rounds until every line is conclusive or this time is spent (--max-wall-time). Blank: just the rounds above."
            value={form.maxWallTime}
            onValue={(value) => set("maxWallTime", value)}
            errors={errors}
          />
        </div>
      </section>

      <HistoryFields form={form} set={set} errors={errors} />

      <FormFooter
        seconds={estimate?.seconds ?? null}
        detail={
          estimate?.up_to_s != null && (
            <span className="muted">
              {" "}
              (more rounds while a line is inconclusive, up to {formatDuration(estimate.up_to_s)})
            </span>
          )
        }
        needs="the duration and rounds"
        pending={create.isPending}
        action="Run check"
        pendingAction="Queueing…"
      />
    </form>
  );
}
