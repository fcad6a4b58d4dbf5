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
import { ServicePicker } from "../new-experiment/ServicePicker";
import {
  CALIBRATION_LOAD,
  type CalibrationFormState,
  initialCalibrationForm,
  toCalibrationRequest,
} from "./calibrationForm";
import { useCreateCalibration } from "./useCalibrations";

/** `/calibrations/new`: queue an A/A experiment, as `tracetax calibrate` would. */
export function NewCalibrationPage() {
  useDocumentTitle("New calibration");
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Calibrate</h1>
          <p className="muted">
            Runs one configuration against itself, interleaved, to measure what this machine can
            resolve for a service at a load. Give the service, baseline and load your checks use.
          </p>
        </div>
        <Link to="/calibrations">Back to the calibrations</Link>
      </div>
      <CatalogGate purpose="calibrate">
        {(services, presets) => <CalibrationForm services={services} presets={presets} />}
      </CatalogGate>
    </>
  );
}

function CalibrationForm({ services, presets }: { services: ServiceInfo[]; presets: Preset[] }) {
  const navigate = useNavigate();
  const create = useCreateCalibration();
  const [form, setForm] = useState<CalibrationFormState>(() =>
    initialCalibrationForm(
      services.map((s) => s.language),
      presets,
    ),
  );
  const summary = useRef<HTMLDivElement>(null);
  const errors: FormErrors = formErrors(create.error);
  useEffect(() => {
    if (create.isError) summary.current?.focus();
  }, [create.isError]);

  const set = <K extends keyof CalibrationFormState>(key: K, value: CalibrationFormState[K]) =>
    setForm((f) => ({ ...f, [key]: value }));
  const available = presetsFor(presets, form.language);
  const seconds = (() => {
    const duration = Number(form.duration_s);
    const rounds = Number(form.rounds);
    if (form.duration_s.trim() === "" || !(duration >= 0) || !(rounds > 0)) return null;
    return estimatedSeconds({
      warmup_s: CALIBRATION_LOAD.warmup_s,
      duration_s: duration,
      max_throughput_s: CALIBRATION_LOAD.max_throughput_s,
      configurations: 2,
      rounds,
    });
  })();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(toCalibrationRequest(form), {
      onSuccess: (created) => navigate(`/calibrations/${created.id}`),
    });
  };

  const numberField = (
    key: Exclude<keyof CalibrationFormState, "language" | "configuration">,
    field: string,
    label: string,
    hint?: string,
    step = "any",
  ) => (
    <Field id={fieldId(field)} label={label} hint={hint} errors={messagesFor(errors, field, true)}>
      {(input) => (
        <NumberInput
          {...input}
          step={step}
          value={form[key]}
          onValue={(value) => set(key, value)}
        />
      )}
    </Field>
  );

  return (
    <form className="experiment-form" onSubmit={submit} noValidate aria-busy={create.isPending}>
      <ErrorSummary ref={summary} errors={errors} title="The calibration was not queued" />
      <section className="panel" aria-labelledby="calibration-what-title">
        <h2 id="calibration-what-title">What to measure twice</h2>
        <ServicePicker
          services={services}
          value={form.language}
          errors={messagesFor(errors, "service", true)}
          onChange={(language) => set("language", language)}
        />
        <Field
          id={fieldId("configuration")}
          label="Configuration"
          hint={`The baseline of the checks this calibration serves. ${available.find((p) => p.name === form.configuration)?.description ?? ""}`.trim()}
          errors={messagesFor(errors, "configuration", true)}
        >
          {(input) => (
            <select
              {...input}
              value={form.configuration}
              onChange={(event) => set("configuration", event.target.value)}
            >
              {available.map((preset) => (
                <option key={preset.name} value={preset.name}>
                  {preset.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      </section>

      <section className="panel" aria-labelledby="calibration-load-title">
        <h2 id="calibration-load-title">Load and rounds</h2>
        <div className="field-grid">
          {numberField("rate", "load.rate", "Rate (req/s)", "Open-model arrival rate.")}
          {numberField("duration_s", "load.duration_s", "Duration (s)", "Measured per round.")}
          {numberField(
            "rounds",
            "rounds",
            "Rounds",
            "Paired rounds (at least 2); more give a steadier floor.",
            "1",
          )}
          {numberField("iters", "load.query.iters", "Work per request (iters)", undefined, "1")}
          {numberField("spans", "load.query.spans", "Spans per request", undefined, "1")}
        </div>
        <p className="muted small">
          No max-throughput phase, as <code>tracetax calibrate</code> runs it. A check is held to
          this calibration when its service, baseline and load (rate, duration, connections, path
          and query) are the same.
        </p>
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
          {create.isPending ? "Queueing…" : "Calibrate"}
        </button>
      </div>
    </form>
  );
}
