import { type FormEvent, useEffect, useRef, useState } from "react";
import { Link, useNavigate } from "react-router";
import type { Preset, ServiceInfo } from "../../api/types";
import { type FormErrors, fieldId, formErrors, messagesFor } from "../../api/validation";
import { CatalogGate } from "../../components/CatalogGate";
import { Field, NumberInput } from "../../components/Field";
import { formatDuration } from "../../lib/format";
import { useDocumentTitle } from "../../lib/useDocumentTitle";
import { ErrorSummary } from "../new-experiment/ErrorSummary";
import { estimatedSeconds } from "../new-experiment/estimate";
import { presetsFor } from "../new-experiment/form";
import { type CheckFormState, initialCheckForm, toCheckRequest } from "./checkForm";
import { BUDGET_LINES, CLI_LOAD } from "./commands";
import { useCreateCheck } from "./useChecks";

/** `/checks/new`: queue a CI check from the UI, as `tracetax check` would. */
export function NewCheckPage() {
  useDocumentTitle("New check");
  return (
    <>
      <div className="page-head">
        <h1>New check</h1>
        <Link to="/checks">Back to the checks</Link>
      </div>
      <CatalogGate purpose="check">
        {(services, presets) => <CheckForm services={services} presets={presets} />}
      </CatalogGate>
    </>
  );
}

function CheckForm({ services, presets }: { services: ServiceInfo[]; presets: Preset[] }) {
  const navigate = useNavigate();
  const create = useCreateCheck();
  const [form, setForm] = useState<CheckFormState>(() =>
    initialCheckForm(
      services.map((s) => s.language),
      presets,
    ),
  );
  const summary = useRef<HTMLDivElement>(null);
  const errors: FormErrors = formErrors(create.error);
  useEffect(() => {
    if (create.isError) summary.current?.focus();
  }, [create.isError]);

  const set = <K extends keyof CheckFormState>(key: K, value: CheckFormState[K]) =>
    setForm((f) => ({ ...f, [key]: value }));
  const available = presetsFor(presets, form.language);
  const seconds = (() => {
    const duration = Number(form.duration_s);
    const rounds = Number(form.rounds);
    if (!(duration >= 0) || !(rounds > 0)) return null;
    return estimatedSeconds({
      warmup_s: CLI_LOAD.warmup_s,
      duration_s: duration,
      max_throughput_s: CLI_LOAD.max_throughput_s,
      configurations: 2,
      rounds,
    });
  })();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(toCheckRequest(form), {
      onSuccess: (created) => navigate(`/checks/${created.id}`),
    });
  };

  const numberField = (
    key: keyof CheckFormState,
    field: string,
    label: string,
    hint?: string,
    step = "any",
  ) => (
    <Field
      key={field}
      id={fieldId(field)}
      label={label}
      hint={hint}
      errors={messagesFor(errors, field, true)}
    >
      {(input) => (
        <NumberInput
          {...input}
          step={step}
          value={form[key] as string}
          onValue={(value) => set(key, value as never)}
        />
      )}
    </Field>
  );

  const presetSelect = (key: "baseline" | "candidate", label: string, hint: string) => (
    <Field
      id={fieldId(key)}
      label={label}
      hint={`${hint} ${available.find((p) => p.name === form[key])?.description ?? ""}`.trim()}
      errors={messagesFor(errors, key, true).filter((m) => !m.startsWith("env"))}
    >
      {(input) => (
        <select {...input} value={form[key]} onChange={(event) => set(key, event.target.value)}>
          {available.map((preset) => (
            <option key={preset.name} value={preset.name}>
              {preset.name}
            </option>
          ))}
        </select>
      )}
    </Field>
  );

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

      <section className="panel" aria-labelledby="check-load-title">
        <h2 id="check-load-title">Load and rounds</h2>
        <div className="field-grid">
          {numberField("rate", "load.rate", "Rate (req/s)", "Open-model arrival rate.")}
          {numberField("duration_s", "load.duration_s", "Duration (s)", "Measured per round.")}
          {numberField("rounds", "rounds", "Rounds", "More rounds, narrower intervals.", "1")}
          {numberField("iters", "load.query.iters", "Work per request (iters)", undefined, "1")}
          {numberField("spans", "load.query.spans", "Spans per request", undefined, "1")}
        </div>
        <p className="muted small">
          Warm-up {CLI_LOAD.warmup_s} s and no max-throughput phase, as <code>tracetax check</code>{" "}
          runs them.
        </p>
      </section>

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
          {BUDGET_LINES.filter((line) => line.unit === "pct").map((line) =>
            numberField(line.key, `budget.${line.key}`, line.field, `CLI: ${line.flag}`),
          )}
        </div>
        <h3 className="field-group-title">Absolute, added to the baseline</h3>
        <div className="field-grid">
          {BUDGET_LINES.filter((line) => line.unit === "ms" || line.unit === "us").map((line) =>
            numberField(line.key, `budget.${line.key}`, line.field, `CLI: ${line.flag}`),
          )}
        </div>
        <h3 className="field-group-title">Telemetry</h3>
        <div className="field-grid">
          {numberField(
            "max_dropped_spans",
            "budget.max_dropped_spans",
            "Max dropped spans",
            "Spans lost inside the SDK (--max-dropped-spans).",
            "1",
          )}
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

      <div className="form-footer panel">
        <p className="estimate" aria-live="polite">
          {seconds != null ? (
            <>
              Estimated time: <strong>about {formatDuration(seconds)}</strong>
            </>
          ) : (
            <span className="muted">Estimated time: — (enter the duration and rounds)</span>
          )}
        </p>
        <button type="submit" className="button-primary" disabled={create.isPending}>
          {create.isPending ? "Queueing…" : "Run check"}
        </button>
      </div>
    </form>
  );
}
