import { Link } from "react-router";
import type { ServiceInfo } from "../../api/types";
import { fieldId, messagesFor } from "../../api/validation";
import { CatalogGate } from "../../components/CatalogGate";
import { Field, NumberField } from "../../components/Field";
import { ConcurrencyFields } from "../../components/spec-form/ConcurrencyFields";
import { concurrencyKnobs } from "../../components/spec-form/concurrencyForm";
import { ErrorSummary } from "../../components/spec-form/ErrorSummary";
import { placeErrorsWith } from "../../components/spec-form/errors";
import { FormFooter } from "../../components/spec-form/FormFooter";
import type { CommandLanguage } from "../../components/spec-form/form";
import { RequestFields } from "../../components/spec-form/RequestFields";
import { ServicePicker } from "../../components/spec-form/ServicePicker";
import { useQueueForm } from "../../components/spec-form/useQueueForm";
import { YourServiceFields } from "../../components/spec-form/YourServiceFields";
import { useDocumentTitle } from "../../lib/useDocumentTitle";
import {
  initialTuningForm,
  launchAvailability,
  PROCESSORS,
  type TextField,
  type TuningFormState,
  toTuningBody,
  tuningIssueTarget,
  tuningSeconds,
} from "./tuningForm";
import { useCreateTuning } from "./useTunings";

/** `/tunings/new`: start a tuning run of a demo service or your own, as `tracetax tune SPEC` would. */
export function NewTuningPage() {
  useDocumentTitle("New tuning");
  return (
    <>
      <div className="page-head">
        <div>
          <h1>New tuning</h1>
          <p className="muted">
            Candidates sized from a short probe of the service's traffic are measured briefly, the
            better half for twice as long, down to the last pair within the wall time; the better of
            the pair is then confirmed against no SDK and the SDK defaults, in interleaved rounds.
          </p>
        </div>
        <Link to="/tunings">Back to the tunings</Link>
      </div>
      <CatalogGate purpose="tune">{(services) => <TuningForm services={services} />}</CatalogGate>
    </>
  );
}

type Spec = {
  key: TextField;
  field: string;
  label: string;
  hint?: string;
  step?: string;
};

const LOAD: Spec[] = [
  { key: "rate", field: "load.rate", label: "Rate (req/s)", hint: "Open-model arrival rate." },
  {
    key: "warmup_s",
    field: "load.warmup_s",
    label: "Warm-up (s)",
    hint: "Before each measured phase; not measured.",
  },
  {
    key: "duration_s",
    field: "load.duration_s",
    label: "Duration (s)",
    hint: "The confirmation's measured phase; the rungs' phases fit the wall time.",
  },
  { key: "connections", field: "load.connections", label: "Connections", step: "1" },
];

const BURST: Spec[] = [
  {
    key: "burst_start_s",
    field: "load.burst.start_s",
    label: "Burst start (s)",
    hint: "Seconds into the measured phase.",
  },
  { key: "burst_duration_s", field: "load.burst.duration_s", label: "Burst duration (s)" },
  {
    key: "burst_multiplier",
    field: "load.burst.multiplier",
    label: "Burst multiplier",
    hint: "The burst's rate is the rate times this.",
  },
];

const BUDGETS: Spec[] = [
  {
    key: "p99_overhead_pct",
    field: "budgets.p99_overhead_pct",
    label: "p99 overhead (%)",
    hint: "p99 latency growth against no SDK at all.",
  },
  {
    key: "cpu_overhead_pct",
    field: "budgets.cpu_overhead_pct",
    label: "CPU overhead (%)",
    hint: "CPU per request growth against no SDK.",
  },
  {
    key: "max_lost_spans",
    field: "budgets.max_lost_spans",
    label: "Max lost spans",
    hint: "Spans lost in the SDK over a rung's rounds.",
    step: "1",
  },
];

const RUNS: Spec[] = [
  {
    key: "rounds",
    field: "rounds",
    label: "Rounds",
    hint: "Interleaved rounds of each rung (2 to 20).",
    step: "1",
  },
  {
    key: "confirm_rounds",
    field: "confirm_rounds",
    label: "Confirmation rounds",
    hint: "Rounds of the confirmation experiment (2 to 50).",
    step: "1",
  },
  {
    key: "wall_time_s",
    field: "wall_time_s",
    label: "Wall time (s)",
    hint: "The whole run's budget: probe, rungs and confirmation. One too small for a single candidate is refused with the least that fits.",
  },
];

function TuningForm({ services }: { services: ServiceInfo[] }) {
  const create = useCreateTuning();
  const {
    form,
    set,
    errors: apiErrors,
    summary,
    submit,
  } = useQueueForm({
    create,
    initial: (): TuningFormState => initialTuningForm(services.map((s) => s.language)),
    toRequest: (state: TuningFormState) => toTuningBody(state, services),
    list: "/tunings",
  });
  // Each message beside what edits it (the summary lists every one).
  const { beside: errors } = placeErrorsWith(apiErrors, (field) => tuningIssueTarget(form, field));
  const command = form.kind === "command";
  const service = services.find((s) => s.language === form.language);
  /** The launch falls back to the service's own SDK where the one chosen cannot run. */
  const keepLaunch = (next: TuningFormState) => {
    const nextService = services.find((s) => s.language === next.language);
    if (!launchAvailability(next, nextService, form.processor).available) set("processor", "batch");
  };

  const numbers = (specs: Spec[]) =>
    specs.map(({ key, field, label, hint, step }) => (
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
    ));
  /** The API's messages about a part of the spec as a whole ("load": a burst past the phase). */
  const partErrors = (field: string) => {
    const messages = messagesFor(errors, field);
    return (
      messages.length > 0 && (
        <p id={fieldId(field)} className="field-error" tabIndex={-1}>
          {messages.join("; ")}
        </p>
      )
    );
  };

  return (
    <form className="experiment-form" onSubmit={submit} noValidate aria-busy={create.isPending}>
      <ErrorSummary
        ref={summary}
        errors={apiErrors}
        title="The tuning was not started"
        target={(field) => tuningIssueTarget(form, field)}
      />
      <section className="panel" aria-labelledby="tuning-what-title">
        <h2 id="tuning-what-title">What to tune</h2>
        <ServicePicker
          services={services}
          value={form.language}
          errors={messagesFor(errors, command ? "service" : "service.language")}
          onChange={(language) => {
            set("kind", "demo");
            set("language", language);
            keepLaunch({ ...form, kind: "demo", language });
          }}
          own={{
            selected: command,
            onSelect: () => {
              set("kind", "command");
              keepLaunch({ ...form, kind: "command" });
            },
            launches: "Tunes: its own SDK, or its zero-code agent (Python, Java, Node)",
          }}
        />
        {command && (
          <YourServiceFields
            draft={form.command}
            onChange={(patch) => set("command", { ...form.command, ...patch })}
            onLanguage={(language: CommandLanguage) => {
              const next = { ...form.command, language };
              set("command", next);
              keepLaunch({ ...form, command: next });
            }}
            errors={errors}
          />
        )}
        <div className="field-row">
          <Field
            id={fieldId("processor")}
            label="Launch to tune"
            hint="OTEL_BSP_* of the service's own SDK, or of its zero-code agent."
            errors={messagesFor(errors, "processor", true)}
          >
            {(input) => (
              <select
                {...input}
                value={form.processor}
                onChange={(event) => set("processor", event.target.value)}
              >
                {PROCESSORS.map(({ value, label }) => {
                  const { available, why } = launchAvailability(form, service, value);
                  return (
                    <option key={value} value={value} disabled={!available}>
                      {available ? label : `${label} (unavailable: ${why})`}
                    </option>
                  );
                })}
              </select>
            )}
          </Field>
          <Field
            id={fieldId("name")}
            label="Name (optional)"
            hint="Names the run and its experiments."
            errors={messagesFor(errors, "name")}
          >
            {(input) => (
              <input
                {...input}
                value={form.name}
                placeholder={`${
                  command
                    ? form.command.service_name.trim() || "your service"
                    : form.language || "service"
                } at ${form.rate || "?"} req/s`}
                onChange={(event) => set("name", event.target.value)}
              />
            )}
          </Field>
        </div>
        <ConcurrencyFields
          field="concurrency"
          knobs={concurrencyKnobs(form, services)}
          draft={form.concurrency}
          onChange={(patch) => set("concurrency", { ...form.concurrency, ...patch })}
          errors={errors}
        />
      </section>

      <section className="panel" aria-labelledby="tuning-load-title">
        <h2 id="tuning-load-title">Traffic</h2>
        {partErrors("load")}
        <div className="field-grid">{numbers(LOAD)}</div>
        {command && (
          <RequestFields
            request={form.request}
            onChange={(patch) => set("request", { ...form.request, ...patch })}
            errors={errors}
          />
        )}
        <label className="checkbox">
          <input
            type="checkbox"
            checked={form.burst}
            onChange={(event) => set("burst", event.target.checked)}
          />{" "}
          A burst in the measured phase: the rate multiplied for a few seconds, what makes a bounded
          queue drop (the queues are sized for its peak)
        </label>
        {form.burst && (
          <fieldset>
            <legend className="field-group-title">Burst</legend>
            {partErrors("load.burst")}
            <div className="field-grid">{numbers(BURST)}</div>
          </fieldset>
        )}
      </section>

      <section className="panel" aria-labelledby="tuning-budgets-title">
        <h2 id="tuning-budgets-title">Budgets</h2>
        <p className="muted small">
          The recommendation is, among the settings that reach the last rung, the one without
          sampling that meets every budget at the least p99 overhead; a sampled one only when none
          does. When nothing meets them, the run says which budget is out of reach and what came
          closest.
        </p>
        {partErrors("budgets")}
        <div className="field-grid">{numbers(BUDGETS)}</div>
      </section>

      <section className="panel" aria-labelledby="tuning-runs-title">
        <h2 id="tuning-runs-title">Rounds and wall time</h2>
        <div className="field-grid">{numbers(RUNS)}</div>
      </section>

      <FormFooter
        seconds={tuningSeconds(form)}
        detail={
          <span className="muted">
            {" "}
            (the wall time: the probe, the search and the confirmation fit within it)
          </span>
        }
        needs="the wall time"
        pending={create.isPending}
        action="Start tuning"
        pendingAction="Starting…"
      />
    </form>
  );
}
