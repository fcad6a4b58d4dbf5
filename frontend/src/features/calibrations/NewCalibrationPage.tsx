import { Link } from "react-router";
import type { Preset, ServiceInfo } from "../../api/types";
import { messagesFor } from "../../api/validation";
import { CatalogGate } from "../../components/CatalogGate";
import { ErrorSummary } from "../../components/spec-form/ErrorSummary";
import { FormFooter } from "../../components/spec-form/FormFooter";
import { presetsFor } from "../../components/spec-form/form";
import { LoadFields, PresetSelect } from "../../components/spec-form/LoadFields";
import { ServicePicker } from "../../components/spec-form/ServicePicker";
import { useEstimate } from "../../components/spec-form/useEstimate";
import { useQueueForm } from "../../components/spec-form/useQueueForm";
import { useDocumentTitle } from "../../lib/useDocumentTitle";
import { initialCalibrationForm, toCalibrationRequest } from "./calibrationForm";
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
  const create = useCreateCalibration();
  const { form, set, errors, summary, submit } = useQueueForm({
    create,
    initial: () =>
      initialCalibrationForm(
        services.map((s) => s.language),
        presets,
      ),
    toRequest: toCalibrationRequest,
    list: "/calibrations",
  });
  const estimate = useEstimate({ of: "calibration", body: toCalibrationRequest(form) });

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
        <PresetSelect
          field="configuration"
          label="Configuration"
          hint="The baseline of the checks this calibration serves."
          presets={presetsFor(presets, form.language)}
          value={form.configuration}
          onChange={(configuration) => set("configuration", configuration)}
          errors={messagesFor(errors, "configuration", true)}
        />
      </section>

      <LoadFields
        titleId="calibration-load-title"
        draft={form}
        onChange={set}
        errors={errors}
        roundsHint="Paired rounds (at least 2); more give a steadier floor."
      >
        No max-throughput phase, as <code>tracetax calibrate</code> runs it. A check is held to this
        calibration when its service, baseline and load (rate, duration, connections, path and
        query) are the same.
      </LoadFields>

      <FormFooter
        seconds={estimate?.seconds ?? null}
        needs="the duration and rounds"
        pending={create.isPending}
        action="Calibrate"
        pendingAction="Queueing…"
      />
    </form>
  );
}
