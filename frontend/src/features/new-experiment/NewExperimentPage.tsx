import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useNavigate } from "react-router";
import { api, unwrap } from "../../api/client";
import { queryKeys } from "../../api/queries";
import type { ExperimentSpec, Preset, ServiceInfo } from "../../api/types";
import { fieldId, messagesFor } from "../../api/validation";
import { CatalogGate } from "../../components/CatalogGate";
import { Field, NumberField } from "../../components/Field";
import { OTEL_DATALIST_ID, OTEL_SUGGESTIONS } from "../../components/spec-form/EnvEditor";
import { ErrorSummary, useErrorSummary } from "../../components/spec-form/ErrorSummary";
import { placeErrors, placeIssue } from "../../components/spec-form/errors";
import { FormFooter } from "../../components/spec-form/FormFooter";
import {
  type CommandDraft,
  type FormState,
  initialForm,
  type LoadDraft,
  type RequestDraft,
  toSpec,
  withService,
} from "../../components/spec-form/form";
import { RequestFields } from "../../components/spec-form/RequestFields";
import { ServicePicker } from "../../components/spec-form/ServicePicker";
import { useEstimate } from "../../components/spec-form/useEstimate";
import { YourServiceFields } from "../../components/spec-form/YourServiceFields";
import { formatDuration } from "../../lib/format";
import { useDocumentTitle } from "../../lib/useDocumentTitle";
import { ConfigurationsEditor } from "./ConfigurationsEditor";
import { PrecisionFields } from "./PrecisionFields";
import { SpecPreview } from "./SpecPreview";

/** `/experiments/new`: the form; waits for the services and presets it is built from. */
export function NewExperimentPage() {
  useDocumentTitle("New experiment");
  return (
    <>
      <div className="page-head">
        <h1>New experiment</h1>
        <Link to="/">Back to the experiments</Link>
      </div>
      <CatalogGate purpose="measure">
        {(services, presets) => <ExperimentForm services={services} presets={presets} />}
      </CatalogGate>
    </>
  );
}

interface FormProps {
  services: ServiceInfo[];
  presets: Preset[];
}

const LOAD_FIELDS: {
  key: Exclude<keyof LoadDraft, "path" | "iters" | "spans">;
  label: string;
  hint: string;
  step: string;
}[] = [
  { key: "rate", label: "Rate (req/s)", hint: "Open-model arrival rate.", step: "any" },
  { key: "warmup_s", label: "Warm-up (s)", hint: "Not measured.", step: "any" },
  { key: "duration_s", label: "Duration (s)", hint: "The measured phase.", step: "any" },
  {
    key: "max_throughput_s",
    label: "Max throughput (s)",
    hint: "Closed-loop phase; 0 skips it.",
    step: "any",
  },
  { key: "connections", label: "Connections", hint: "In flight at most.", step: "1" },
  {
    key: "side_by_side_s",
    label: "Side by side (s)",
    hint: "Each round starts with every configuration live at once on the service cores, each under its own load: CPU per request, RSS and p50 are compared from this phase, under the same core speed. Blank: as long as the measured phase; 0 turns it off (all measured one at a time). Tails and max throughput always come from each configuration alone.",
    step: "any",
  },
  {
    key: "side_by_side_instances",
    label: "Instances side by side",
    hint: "Live instances of each configuration in that phase, each under its own load at the rate, their figures pooled. Two fresh processes of one build differ by a few percent (a JVM's compiled code most): 2 averages that out without more rounds. For light configurations: the service cores carry twice the load, and a configuration's own instances preempt one another, which adds to a heavy configuration's CPU per request. Blank: 1.",
    step: "1",
  },
];

export function ExperimentForm({ services, presets }: FormProps) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [form, setForm] = useState<FormState>(() => initialForm(services, presets));

  const create = useMutation({
    mutationFn: (spec: ExperimentSpec) => unwrap(api.POST("/api/v1/experiments", { body: spec })),
    onSuccess: (created) => {
      queryClient.invalidateQueries({ queryKey: queryKeys.all });
      navigate(`/experiments/${created.id}`);
    },
  });
  const { errors: apiErrors, summary } = useErrorSummary(create);
  // Each message beside the input that edits its field; the summary lists every one.
  const { beside: errors } = placeErrors(form, apiErrors);
  const command = form.kind === "command";

  const service = services.find((s) => s.language === form.language);
  const spec = toSpec(form, presets, services);
  const estimate = useEstimate({ of: "experiment", body: spec });
  const setLoad = (key: keyof LoadDraft, value: string) =>
    setForm((f) => ({ ...f, load: { ...f.load, [key]: value } }));
  const setCommand = (patch: Partial<CommandDraft>) =>
    setForm((f) => ({ ...f, command: { ...f.command, ...patch } }));
  const setRequest = (patch: Partial<RequestDraft>) =>
    setForm((f) => ({ ...f, request: { ...f.request, ...patch } }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(spec);
  };

  const numberField = (
    field: string,
    label: string,
    value: string,
    onValue: (value: string) => void,
    hint?: string,
    step = "any",
  ) => (
    <NumberField
      key={field}
      field={field}
      label={label}
      hint={hint}
      step={step}
      value={value}
      onValue={onValue}
      errors={errors}
    />
  );

  return (
    <form className="experiment-form" onSubmit={submit} noValidate aria-busy={create.isPending}>
      <ErrorSummary ref={summary} errors={apiErrors} target={(field) => placeIssue(form, field)} />
      <datalist id={OTEL_DATALIST_ID}>
        {OTEL_SUGGESTIONS.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>

      <section className="panel" aria-labelledby="what-title">
        <h2 id="what-title">What to measure</h2>
        <Field id={fieldId("name")} label="Name (optional)" errors={messagesFor(errors, "name")}>
          {(input) => (
            <input
              {...input}
              value={form.name}
              maxLength={120}
              placeholder="e.g. batch vs simple on Go"
              onChange={(event) => setForm((f) => ({ ...f, name: event.target.value }))}
            />
          )}
        </Field>
        <ServicePicker
          services={services}
          value={form.language}
          errors={messagesFor(errors, command ? "service" : "service.language")}
          onChange={(language) =>
            setForm((f) => withService(f, presets, { kind: "demo", language }))
          }
          own={{
            selected: command,
            onSelect: () => setForm((f) => withService(f, presets, { kind: "command" })),
          }}
        />
        {command && (
          <YourServiceFields
            draft={form.command}
            onChange={setCommand}
            onLanguage={(language) =>
              setForm((f) => withService(f, presets, { commandLanguage: language }))
            }
            errors={errors}
          />
        )}
      </section>

      <section className="panel" aria-labelledby="configurations-title">
        <h2 id="configurations-title">How to instrument it</h2>
        <ConfigurationsEditor
          configurations={form.configurations}
          baseline={form.baseline}
          service={command ? undefined : service}
          command={command ? form.command.language : undefined}
          presets={presets}
          errors={errors}
          onChange={(configurations, baseline) =>
            setForm((f) => ({ ...f, configurations, baseline, configurationsEdited: true }))
          }
        />
      </section>

      <section className="panel" aria-labelledby="load-title">
        <h2 id="load-title">Load</h2>
        <div className="field-grid">
          {LOAD_FIELDS.map(({ key, label, hint, step }) =>
            numberField(`load.${key}`, label, form.load[key], (v) => setLoad(key, v), hint, step),
          )}
          {!command && (
            <>
              <Field
                id={fieldId("load.path")}
                label="Path"
                errors={messagesFor(errors, "load.path")}
              >
                {(input) => (
                  <input
                    {...input}
                    className="mono"
                    value={form.load.path}
                    spellCheck={false}
                    onChange={(event) => setLoad("path", event.target.value)}
                  />
                )}
              </Field>
              {numberField(
                "load.query.iters",
                "Work per request (iters)",
                form.load.iters,
                (v) => setLoad("iters", v),
                "CPU work the demo does per request.",
                "1",
              )}
              {numberField(
                "load.query.spans",
                "Spans per request",
                form.load.spans,
                (v) => setLoad("spans", v),
                "Child spans the demo creates.",
                "1",
              )}
            </>
          )}
        </div>
        {command && <RequestFields request={form.request} onChange={setRequest} errors={errors} />}
        {messagesFor(errors, "load").length > 0 && (
          <p className="field-error" id={fieldId("load")}>
            {messagesFor(errors, "load").join("; ")}
          </p>
        )}
        {messagesFor(errors, "load.query").length > 0 && (
          <p className="field-error" id={fieldId("load.query")}>
            {messagesFor(errors, "load.query").join("; ")}
          </p>
        )}
      </section>

      <section className="panel" aria-labelledby="rounds-title">
        <h2 id="rounds-title">Rounds and order</h2>
        <div className="field-grid">
          {numberField(
            "rounds",
            "Rounds",
            form.rounds,
            (rounds) => setForm((f) => ({ ...f, rounds })),
            "Each round runs every configuration once.",
            "1",
          )}
          {numberField(
            "seed",
            "Seed",
            form.seed,
            (seed) => setForm((f) => ({ ...f, seed })),
            "Shuffles the order within rounds.",
            "1",
          )}
        </div>
        <label className="checkbox" htmlFor={fieldId("sample_stacks")}>
          <input
            id={fieldId("sample_stacks")}
            type="checkbox"
            checked={form.sampleStacks}
            aria-describedby={`${fieldId("sample_stacks")}-hint`}
            onChange={(event) => setForm((f) => ({ ...f, sampleStacks: event.target.checked }))}
          />
          Sample stacks
        </label>
        <p className="hint" id={`${fieldId("sample_stacks")}-hint`}>
          A phase of its own after the measured one (never measured), to show where the export work
          runs.
        </p>
        {messagesFor(errors, "sample_stacks").length > 0 && (
          <p className="field-error">{messagesFor(errors, "sample_stacks").join("; ")}</p>
        )}
        <SpecPreview spec={spec} baseUrl={window.location.origin} />
      </section>

      <PrecisionFields
        draft={form.precision}
        onChange={(patch) => setForm((f) => ({ ...f, precision: { ...f.precision, ...patch } }))}
        errors={errors}
      />

      <FormFooter
        seconds={estimate?.seconds ?? null}
        detail={
          estimate && (
            <>
              {" "}
              <span className="muted">
                ({estimate.configurations} configuration
                {estimate.configurations === 1 ? "" : "s"} × {estimate.rounds} round
                {estimate.rounds === 1 ? "" : "s"} × {formatDuration(estimate.per_run_s)} each
                {estimate.side_by_side_s > 0 &&
                  `, plus ${formatDuration(estimate.side_by_side_s)} side by side per round`}
                )
              </span>
              {estimate.up_to_s != null && (
                <span data-testid="estimate-up-to">
                  , then more rounds until precise:{" "}
                  <strong>up to {formatDuration(estimate.up_to_s)}</strong>
                </span>
              )}
            </>
          )
        }
        needs="the load and rounds"
        pending={create.isPending}
        action="Start experiment"
        pendingAction="Starting…"
      />
    </form>
  );
}
