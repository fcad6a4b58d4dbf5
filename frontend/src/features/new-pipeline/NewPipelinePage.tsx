import { Link } from "react-router";
import type { PipelineVariantInfo, SpecEstimate } from "../../api/types";
import { fieldId, messagesFor } from "../../api/validation";
import { Field, NumberField } from "../../components/Field";
import { QueryStates } from "../../components/States";
import { ErrorSummary } from "../../components/spec-form/ErrorSummary";
import { FormFooter } from "../../components/spec-form/FormFooter";
import {
  initialPipelineForm,
  type PipelineLoadDraft,
  RAMP_STEP_OVERHEAD_S,
  type RampDraft,
  toPipelineSpec,
} from "../../components/spec-form/pipelineForm";
import { useEstimate } from "../../components/spec-form/useEstimate";
import { useCreatePipelineExperiment, usePipelines } from "../../components/spec-form/usePipelines";
import { useQueueForm } from "../../components/spec-form/useQueueForm";
import { formatDuration, formatSpanRate } from "../../lib/format";
import { useDocumentTitle } from "../../lib/useDocumentTitle";
import { VariantsEditor } from "./VariantsEditor";

/** `/pipelines/new`: the form; waits for the shipped variants it offers. */
export function NewPipelinePage() {
  useDocumentTitle("New pipeline experiment");
  const pipelines = usePipelines();
  return (
    <>
      <div className="page-head">
        <div>
          <h1>New pipeline experiment</h1>
          <p className="muted">
            Measures what a Collector pipeline costs: telemetrygen sends spans at a constant rate to
            a lab Collector running each variant in turn, and every Collector's CPU, memory and
            counters are read.
          </p>
        </div>
        <Link to="/">Back to the experiments</Link>
      </div>
      <QueryStates
        query={pipelines}
        loading="Loading the pipeline variants…"
        error="Could not load the pipeline variants"
        empty={<p>The backend ships no pipeline variant (collector-pipelines/lab).</p>}
      >
        {(catalog) => <PipelineForm catalog={catalog} />}
      </QueryStates>
    </>
  );
}

const LOAD_FIELDS: { key: keyof PipelineLoadDraft; label: string; hint: string; step: string }[] = [
  {
    key: "spans_per_s",
    label: "Spans per second",
    hint: "The constant rate telemetrygen sends.",
    step: "any",
  },
  { key: "warmup_s", label: "Warm-up (s)", hint: "Not measured.", step: "any" },
  { key: "duration_s", label: "Measured (s)", hint: "The measured phase.", step: "any" },
  {
    key: "drain_s",
    label: "Drain (s)",
    hint: "Then the pipeline passes on what it holds; longer than any decision wait.",
    step: "any",
  },
  {
    key: "spans_per_trace",
    label: "Spans per trace",
    hint: "A root span and its children (at least 2).",
    step: "1",
  },
  {
    key: "attribute_bytes",
    label: "Attribute bytes",
    hint: "One extra attribute of this size per span.",
    step: "1",
  },
];

const RAMP_FIELDS: {
  key: Exclude<keyof RampDraft, "enabled">;
  label: string;
  hint: string;
  step: string;
}[] = [
  {
    key: "factor",
    label: "Factor",
    hint: "Each step's rate over the previous one's.",
    step: "any",
  },
  { key: "step_s", label: "Step (s)", hint: "How long each step sends.", step: "any" },
  {
    key: "max_spans_per_s",
    label: "Up to (spans/s)",
    hint: "The ramp stops here at the latest.",
    step: "any",
  },
  { key: "max_steps", label: "Max steps", hint: "At most this many steps.", step: "1" },
];

/** The rates the ramp may try, as the backend's estimate counts them (RampSpec.rates), as a
 * line: "1,000 → 1,500 → 2,250 spans/s". */
function RampRates({ estimate }: { estimate: SpecEstimate | null }) {
  if (estimate?.ramp_step_s == null)
    return (
      <p className="muted small">
        The steps show once the load and the ramp's fields are ones the API accepts.
      </p>
    );
  const rates = estimate.ramp_rates ?? [];
  if (rates.length === 0)
    return <p className="muted small">No step: the span rate is already above the ramp's top.</p>;
  const shown =
    rates.length > 6
      ? [...rates.slice(0, 3), null, ...rates.slice(-2)]
      : (rates as (number | null)[]);
  return (
    <p className="small" data-testid="ramp-rates">
      At most {rates.length} step{rates.length === 1 ? "" : "s"} per round, from the measured rate:{" "}
      {shown.map((r) => (r == null ? "…" : formatSpanRate(r).replace(" spans/s", ""))).join(" → ")}{" "}
      spans/s; each sends {estimate.ramp_step_s} s (+{RAMP_STEP_OVERHEAD_S} s to start and settle).
      The ramp stops at the first step a variant does not keep up with.
    </p>
  );
}

function PipelineForm({ catalog }: { catalog: PipelineVariantInfo[] }) {
  const create = useCreatePipelineExperiment();
  const { form, set, errors, summary, submit } = useQueueForm({
    create,
    initial: () => initialPipelineForm(catalog),
    toRequest: toPipelineSpec,
    list: "/experiments",
  });
  const estimate = useEstimate({ of: "experiment", body: toPipelineSpec(form) });

  return (
    <form className="experiment-form" onSubmit={submit} noValidate aria-busy={create.isPending}>
      <ErrorSummary ref={summary} errors={errors} />

      <section className="panel" aria-labelledby="pipeline-what-title">
        <h2 id="pipeline-what-title">What to measure</h2>
        <Field id={fieldId("name")} label="Name (optional)" errors={messagesFor(errors, "name")}>
          {(input) => (
            <input
              {...input}
              value={form.name}
              maxLength={120}
              placeholder="e.g. batching vs tail sampling at 10k spans/s"
              onChange={(event) => set("name", event.target.value)}
            />
          )}
        </Field>
        <VariantsEditor
          catalog={catalog}
          variants={form.variants}
          baseline={form.baseline}
          errors={errors}
          onChange={({ variants, baseline }) => {
            set("variants", variants);
            set("baseline", baseline);
          }}
        />
      </section>

      <section className="panel" aria-labelledby="pipeline-load-title">
        <h2 id="pipeline-load-title">Load</h2>
        <div className="field-grid">
          {LOAD_FIELDS.map(({ key, label, hint, step }) => (
            <NumberField
              key={key}
              field={`load.${key}`}
              label={label}
              hint={hint}
              step={step}
              value={form.load[key]}
              onValue={(value) => set("load", { ...form.load, [key]: value })}
              errors={errors}
            />
          ))}
        </div>
        {messagesFor(errors, "load").length > 0 && (
          <p className="field-error">{messagesFor(errors, "load").join("; ")}</p>
        )}
      </section>

      <section className="panel" aria-labelledby="pipeline-ramp-title">
        <h2 id="pipeline-ramp-title">Ramp (optional)</h2>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={form.ramp.enabled}
            onChange={(event) => set("ramp", { ...form.ramp, enabled: event.target.checked })}
          />{" "}
          After the measured phase, raise the span rate step by step until each variant stops
          keeping up: its highest sustainable rate, and its CPU against rate
        </label>
        {form.ramp.enabled && (
          <>
            <div className="field-grid">
              {RAMP_FIELDS.map(({ key, label, hint, step }) => (
                <NumberField
                  key={key}
                  field={`load.ramp.${key}`}
                  label={label}
                  hint={hint}
                  step={step}
                  value={form.ramp[key]}
                  onValue={(value) => set("ramp", { ...form.ramp, [key]: value })}
                  errors={errors}
                />
              ))}
            </div>
            <RampRates estimate={estimate} />
          </>
        )}
        {messagesFor(errors, "load.ramp").length > 0 && (
          <p className="field-error">{messagesFor(errors, "load.ramp").join("; ")}</p>
        )}
      </section>

      <section className="panel" aria-labelledby="pipeline-rounds-title">
        <h2 id="pipeline-rounds-title">Rounds and order</h2>
        <div className="field-grid">
          <NumberField
            field="rounds"
            label="Rounds"
            hint="Each round runs every variant once; 2 or more give intervals."
            step="1"
            value={form.rounds}
            onValue={(value) => set("rounds", value)}
            errors={errors}
          />
          <NumberField
            field="seed"
            label="Seed"
            hint="Shuffles the order within rounds."
            step="1"
            value={form.seed}
            onValue={(value) => set("seed", value)}
            errors={errors}
          />
        </div>
      </section>

      <FormFooter
        seconds={estimate?.seconds ?? null}
        detail={
          estimate && (
            <>
              {" "}
              <span className="muted">
                ({estimate.configurations} variant{estimate.configurations === 1 ? "" : "s"} ×{" "}
                {estimate.rounds} round{estimate.rounds === 1 ? "" : "s"} ×{" "}
                {formatDuration(estimate.per_run_s)} each
                {estimate.ramp_steps > 0
                  ? `, up to ${estimate.ramp_steps} ramp step${estimate.ramp_steps === 1 ? "" : "s"} included`
                  : ""}
                {estimate.side_by_side_s > 0 &&
                  `, plus ${formatDuration(estimate.side_by_side_s)} side by side per round`}
                )
              </span>
            </>
          )
        }
        needs={
          form.ramp.enabled
            ? "the load, the ramp, at least one variant and the rounds"
            : "the load, at least one variant and the rounds"
        }
        pending={create.isPending}
        action="Start pipeline experiment"
        pendingAction="Starting…"
      />
    </form>
  );
}
