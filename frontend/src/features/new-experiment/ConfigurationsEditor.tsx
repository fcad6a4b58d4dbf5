import { useState } from "react";
import type { Preset, Processor, ServiceInfo } from "../../api/types";
import { type FormErrors, fieldId, messagesFor } from "../../api/validation";
import { Field } from "../../components/Field";
import { ConcurrencyFields } from "../../components/spec-form/ConcurrencyFields";
import { commandKnobs, demoKnobs } from "../../components/spec-form/concurrencyForm";
import { EnvEditor } from "../../components/spec-form/EnvEditor";
import {
  type CommandLanguage,
  type ConfigurationDraft,
  commandProcessorProblem,
  configurationFromPreset,
  customConfiguration,
  launchLabel,
  launchShort,
  PROCESSORS,
  presetsFor,
} from "../../components/spec-form/form";
import "../../components/spec-form/specForm.css";

interface Props {
  configurations: ConfigurationDraft[];
  baseline: string;
  /** The demo service measured (undefined for your own service). */
  service: ServiceInfo | undefined;
  /** Your own service's language: the launches are its (none, zero-code, eBPF, its own SDK). */
  command?: CommandLanguage;
  presets: Preset[];
  errors: FormErrors;
  onChange: (configurations: ConfigurationDraft[], baseline: string) => void;
}

const CUSTOM = "__custom__";

/** Why a processor cannot be chosen for the service, or null when it can. */
export function processorProblem(
  service: ServiceInfo | undefined,
  processor: string,
): string | null {
  if (!service) return null;
  const mode = service.modes.find((m) => m.name === processor);
  if (!mode) return `${service.language} has no ${processor} mode`;
  if (!mode.available) return `cannot run here${mode.why ? `: ${mode.why}` : ""}`;
  return null;
}

/** The order launches are offered in for your own service: the baseline, zero-code, its own SDK. */
const LAUNCH_ORDER = ["none", "agent", "ebpf", "batch", "simple"];

/**
 * The presets offered for a service: those for its language; for your own service only those
 * it can be launched with, the baseline and the zero-code launch first.
 */
export function offeredPresets(
  presets: readonly Preset[],
  language: string,
  command: boolean,
): Preset[] {
  const applicable = presetsFor(presets, language);
  if (!command) return applicable;
  return applicable
    .filter((preset) => commandProcessorProblem(language, preset.processor) === null)
    .sort((a, b) => LAUNCH_ORDER.indexOf(a.processor) - LAUNCH_ORDER.indexOf(b.processor));
}

/** The configurations to compare: one per card, exactly one of them the baseline. */
export function ConfigurationsEditor({
  configurations,
  baseline,
  service,
  command,
  presets,
  errors,
  onChange,
}: Props) {
  const language = command ?? service?.language ?? "";
  const problemOf = (processor: string) =>
    command ? commandProcessorProblem(command, processor) : processorProblem(service, processor);
  /** A processor as the selects offer it: with how your own service is launched by it. */
  const processorText = (processor: string) =>
    command ? `${processor} — ${launchShort(processor)}` : processor;
  const applicable = offeredPresets(presets, language, command !== undefined);
  const knobs = command ? commandKnobs(command) : demoKnobs(service);
  const [choice, setChoice] = useState<string>(applicable[0]?.name ?? CUSTOM);
  // A choice that no longer applies (the service changed) falls back to the first preset.
  const toAdd =
    choice === CUSTOM || applicable.some((p) => p.name === choice)
      ? choice
      : (applicable[0]?.name ?? CUSTOM);
  const names = configurations.map((c) => c.name);

  const replace = (index: number, patch: Partial<ConfigurationDraft>) =>
    onChange(
      configurations.map((c, i) => (i === index ? { ...c, ...patch } : c)),
      baseline,
    );

  const remove = (index: number) => {
    const rest = configurations.filter((_, i) => i !== index);
    const removedBaseline = configurations[index].uid === baseline;
    onChange(rest, removedBaseline ? (rest[0]?.uid ?? "") : baseline);
  };

  const add = () => {
    const preset = presets.find((p) => p.name === toAdd);
    const draft = preset ? configurationFromPreset(preset, names) : customConfiguration(names);
    onChange([...configurations, draft], baseline || draft.uid);
  };

  const listErrors = [...messagesFor(errors, "configurations")];

  return (
    <fieldset className="configurations" id={fieldId("configurations")}>
      <legend>Configurations</legend>
      <p className="hint">
        Each configuration runs in every round, in a shuffled order. The baseline is what the others
        are compared against.
      </p>
      {listErrors.length > 0 && <p className="field-error">{listErrors.join("; ")}</p>}
      <ol className="configuration-list">
        {configurations.map((configuration, index) => {
          const path = `configurations.${index}`;
          const preset = presets.find((p) => p.name === configuration.preset);
          const cardErrors = [
            ...messagesFor(errors, path),
            ...messagesFor(errors, `${path}.preset`),
            ...messagesFor(errors, `${path}.baseline`),
          ];
          const problem = problemOf(configuration.processor);
          const isBaseline = configuration.uid === baseline;
          return (
            <li
              key={configuration.uid}
              className={`configuration-card${isBaseline ? " is-baseline" : ""}`}
              aria-label={`Configuration ${index + 1}: ${configuration.name || "unnamed"}`}
            >
              <div className="configuration-head">
                <span className="muted small">
                  {preset ? (
                    <>
                      from preset <strong>{preset.name}</strong>
                    </>
                  ) : (
                    "custom"
                  )}
                </span>
                <label className="baseline-choice">
                  <input
                    type="radio"
                    name="baseline"
                    checked={isBaseline}
                    onChange={() => onChange(configurations, configuration.uid)}
                  />{" "}
                  Baseline
                </label>
                <button
                  type="button"
                  className="button-small"
                  onClick={() => remove(index)}
                  disabled={configurations.length <= 1}
                  aria-label={`Remove configuration ${configuration.name || index + 1}`}
                >
                  Remove
                </button>
              </div>
              {preset && <p className="muted small">{preset.description}</p>}
              {cardErrors.length > 0 && (
                <p className="field-error" id={fieldId(path)}>
                  {cardErrors.join("; ")}
                </p>
              )}
              <div className="field-row">
                <Field
                  id={fieldId(`${path}.name`)}
                  label="Name"
                  errors={messagesFor(errors, `${path}.name`)}
                >
                  {(input) => (
                    <input
                      {...input}
                      className="mono"
                      value={configuration.name}
                      spellCheck={false}
                      onChange={(event) => replace(index, { name: event.target.value })}
                    />
                  )}
                </Field>
                <Field
                  id={fieldId(`${path}.processor`)}
                  label="Processor"
                  errors={messagesFor(errors, `${path}.processor`)}
                  hint={
                    problem ?? (command ? launchLabel(command, configuration.processor) : undefined)
                  }
                >
                  {(input) => (
                    <select
                      {...input}
                      value={configuration.processor}
                      onChange={(event) =>
                        replace(index, { processor: event.target.value as Processor })
                      }
                    >
                      {PROCESSORS.map((processor) => {
                        const why = problemOf(processor);
                        return (
                          <option
                            key={processor}
                            value={processor}
                            disabled={why !== null && processor !== configuration.processor}
                          >
                            {command && why === null ? processorText(processor) : processor}
                            {why ? ` (${why})` : ""}
                          </option>
                        );
                      })}
                    </select>
                  )}
                </Field>
              </div>
              <EnvEditor
                field={`${path}.env`}
                label="OTEL_* overrides"
                rows={configuration.env}
                errors={messagesFor(errors, `${path}.env`, true)}
                onChange={(env) => replace(index, { env })}
              />
              <ConcurrencyFields
                field={`${path}.concurrency`}
                knobs={knobs}
                draft={configuration.concurrency}
                onChange={(patch) =>
                  replace(index, { concurrency: { ...configuration.concurrency, ...patch } })
                }
                errors={errors}
              />
            </li>
          );
        })}
      </ol>
      <div className="add-configuration">
        <label htmlFor="add-configuration">Add a configuration</label>
        <select
          id="add-configuration"
          value={toAdd}
          onChange={(event) => setChoice(event.target.value)}
        >
          {applicable.map((preset) => {
            const why = problemOf(preset.processor);
            return (
              <option key={preset.name} value={preset.name} disabled={why !== null}>
                {preset.name}
                {command ? ` — ${launchLabel(command, preset.processor)}` : ""}
                {why ? ` (${why})` : ""}
              </option>
            );
          })}
          <option value={CUSTOM}>custom (processor and variables of your choice)</option>
        </select>
        <button type="button" onClick={add} disabled={configurations.length >= 12}>
          Add
        </button>
      </div>
    </fieldset>
  );
}
