import { useState } from "react";
import type { PipelineVariantInfo } from "../../api/types";
import { type FormErrors, fieldId, messagesFor } from "../../api/validation";
import { Field } from "../../components/Field";
import { EnvEditor } from "../../components/spec-form/EnvEditor";
import type { EnvRow } from "../../components/spec-form/form";
import {
  fileVariant,
  labSettings,
  MAX_VARIANTS,
  toggleShipped,
  type VariantChoice,
  type VariantDraft,
  withVariants,
} from "../../components/spec-form/pipelineForm";
import "../../components/spec-form/specForm.css";
import "./newPipeline.css";

interface Props extends VariantChoice {
  catalog: PipelineVariantInfo[];
  errors: FormErrors;
  onChange: (choice: VariantChoice) => void;
}

/** The API's messages about the variant sent at `index` (none for a variant not chosen). */
function variantErrors(errors: FormErrors, index: number, fields: string[]): string[] {
  if (index < 0) return [];
  const path = `configurations.${index}`;
  return [path, ...fields.map((field) => `${path}.${field}`)].flatMap((field) =>
    messagesFor(errors, field),
  );
}

/**
 * The pipeline variants to compare: the shipped ones as checkboxes (passthrough, no processor
 * at all, the natural baseline) and overlays of one's own by their path on the backend's host;
 * exactly one of them the baseline.
 */
export function VariantsEditor({ catalog, variants, baseline, errors, onChange }: Props) {
  const [path, setPath] = useState("");
  const choice: VariantChoice = { variants, baseline };
  const full = variants.length >= MAX_VARIANTS;
  const files = variants
    .map((variant, index) => ({ variant, index }))
    .filter(({ variant }) => variant.pipeline == null);

  const update = (uid: string, patch: Partial<VariantDraft>) =>
    onChange({ variants: variants.map((v) => (v.uid === uid ? { ...v, ...patch } : v)), baseline });
  const remove = (uid: string) =>
    onChange(
      withVariants(
        choice,
        variants.filter((v) => v.uid !== uid),
        catalog,
      ),
    );
  const addFile = () => {
    if (path.trim() === "") return;
    onChange(
      withVariants(
        choice,
        [
          ...variants,
          fileVariant(
            path,
            variants.map((v) => v.name),
          ),
        ],
        catalog,
      ),
    );
    setPath("");
  };

  const settingsEditor = (variant: VariantDraft, index: number, readable: string[]) => {
    const listId = `lab-settings-${variant.uid}`;
    return (
      <>
        <datalist id={listId}>
          {readable.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
        <EnvEditor
          field={`configurations.${index}.settings`}
          label="LAB_* settings"
          rows={variant.settings}
          prefix="LAB_"
          suggestions={listId}
          empty="No settings: the overlay's defaults apply."
          errors={messagesFor(errors, `configurations.${index}.settings`, true)}
          onChange={(settings: EnvRow[]) => update(variant.uid, { settings })}
        />
      </>
    );
  };

  const baselineChoice = (variant: VariantDraft | undefined, name: string) => (
    <label className="baseline-choice">
      <input
        type="radio"
        name="pipeline-baseline"
        checked={variant != null && variant.uid === baseline}
        disabled={variant == null}
        aria-label={`${name} is the baseline`}
        onChange={() => variant && onChange({ variants, baseline: variant.uid })}
      />{" "}
      Baseline
    </label>
  );

  return (
    <fieldset className="configurations variants" id={fieldId("configurations")}>
      <legend>Pipeline variants</legend>
      <p className="hint">
        Each chosen variant runs in every round, in a shuffled order, under the same span rate. The
        baseline is what the others are compared against: passthrough, with no processor at all, is
        the natural one.
      </p>
      {messagesFor(errors, "configurations").length > 0 && (
        <p className="field-error">{messagesFor(errors, "configurations").join("; ")}</p>
      )}
      <ul className="variant-options">
        {catalog.map((info) => {
          const index = variants.findIndex((v) => v.pipeline === info.name);
          const variant = index < 0 ? undefined : variants[index];
          const settings = labSettings(info.config);
          const cardErrors = variantErrors(errors, index, ["pipeline", "name", "baseline"]);
          const checkboxId =
            index < 0 ? `pipeline-${info.name}` : fieldId(`configurations.${index}.pipeline`);
          return (
            <li
              key={info.name}
              className={`variant-option${variant ? " is-selected" : ""}${variant?.uid === baseline ? " is-baseline" : ""}`}
              aria-label={`Variant ${info.name}`}
            >
              <div className="configuration-head">
                <label htmlFor={checkboxId} className="variant-name">
                  <input
                    id={checkboxId}
                    type="checkbox"
                    checked={variant != null}
                    disabled={variant == null && full}
                    aria-invalid={cardErrors.length > 0 || undefined}
                    onChange={() => onChange(toggleShipped(choice, info.name, catalog))}
                  />{" "}
                  <strong>{info.name}</strong>
                </label>
                {baselineChoice(variant, info.name)}
              </div>
              <p className="muted small">{info.description}</p>
              {(info.holds_traces || info.samples || info.downstreams > 0) && (
                <p className="variant-tags">
                  {info.holds_traces && <span className="tag">holds traces</span>}
                  {info.samples && <span className="tag">samples</span>}
                  {info.downstreams > 0 && (
                    <span className="tag">
                      {info.downstreams} downstream Collector{info.downstreams === 1 ? "" : "s"}
                    </span>
                  )}
                </p>
              )}
              {cardErrors.length > 0 && <p className="field-error">{cardErrors.join("; ")}</p>}
              {variant && settings.length > 0 && (
                <p className="hint">
                  Reads{" "}
                  {settings.map((setting, i) => (
                    <span key={setting.name}>
                      {i > 0 && ", "}
                      <code>{setting.name}</code> (default {setting.default || "empty"})
                    </span>
                  ))}
                  .
                </p>
              )}
              {variant &&
                (settings.length > 0 || variant.settings.length > 0) &&
                settingsEditor(
                  variant,
                  index,
                  settings.map((s) => s.name),
                )}
              <details className="variant-config">
                <summary>
                  Its config: <code>{info.file}</code>
                </summary>
                <pre className="code-block">{info.config}</pre>
              </details>
            </li>
          );
        })}
      </ul>

      <h3 className="field-group-title">Config files of your own</h3>
      <p className="hint">
        An overlay over the lab base that sets <code>service.pipelines.traces/lab</code>, by its
        path on the backend's host. The API checks it with the Collector before queueing.
      </p>
      {files.length > 0 && (
        <ol className="configuration-list">
          {files.map(({ variant, index }) => {
            const at = `configurations.${index}`;
            const cardErrors = variantErrors(errors, index, ["baseline"]);
            return (
              <li
                key={variant.uid}
                className={`configuration-card${variant.uid === baseline ? " is-baseline" : ""}`}
                aria-label={`Config file ${variant.name || index + 1}`}
              >
                <div className="configuration-head">
                  <span className="muted small">config file</span>
                  {baselineChoice(variant, variant.name || variant.configFile)}
                  <button
                    type="button"
                    className="button-small"
                    onClick={() => remove(variant.uid)}
                    aria-label={`Remove ${variant.name || variant.configFile}`}
                  >
                    Remove
                  </button>
                </div>
                {cardErrors.length > 0 && <p className="field-error">{cardErrors.join("; ")}</p>}
                <div className="field-row">
                  <Field
                    id={fieldId(`${at}.name`)}
                    label="Name"
                    errors={messagesFor(errors, `${at}.name`)}
                  >
                    {(input) => (
                      <input
                        {...input}
                        className="mono"
                        value={variant.name}
                        spellCheck={false}
                        onChange={(event) => update(variant.uid, { name: event.target.value })}
                      />
                    )}
                  </Field>
                  <Field
                    id={fieldId(`${at}.config_file`)}
                    label="Config file"
                    errors={messagesFor(errors, `${at}.config_file`)}
                  >
                    {(input) => (
                      <input
                        {...input}
                        className="mono"
                        value={variant.configFile}
                        spellCheck={false}
                        onChange={(event) =>
                          update(variant.uid, { configFile: event.target.value })
                        }
                      />
                    )}
                  </Field>
                </div>
                {settingsEditor(variant, index, [])}
              </li>
            );
          })}
        </ol>
      )}
      <div className="add-configuration">
        <label htmlFor="add-config-file">Add a variant by config file path</label>
        <input
          id="add-config-file"
          className="mono"
          value={path}
          spellCheck={false}
          placeholder="/path/on/the/backend/host/my-pipeline.yaml"
          onChange={(event) => setPath(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Enter") {
              event.preventDefault();
              addFile();
            }
          }}
        />
        <button type="button" onClick={addFile} disabled={path.trim() === "" || full}>
          Add
        </button>
      </div>
    </fieldset>
  );
}
