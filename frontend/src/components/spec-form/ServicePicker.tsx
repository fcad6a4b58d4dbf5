import type { ServiceInfo } from "../../api/types";
import { fieldId } from "../../api/validation";
import "./specForm.css";

interface Props {
  services: ServiceInfo[];
  value: string;
  errors: string[];
  onChange: (language: string) => void;
  /** Offers "Your service" (a command of the user's) beside the demo services; `launches` says
   * what the form does with it, when not every launch of an experiment. */
  own?: { selected: boolean; onSelect: () => void; launches?: string };
}

/**
 * The demo service to measure, with the OpenTelemetry modes it has and which can run here, or
 * (with `own`) the user's own service.
 */
export function ServicePicker({ services, value, errors, onChange, own }: Props) {
  const errorId = errors.length > 0 ? "service-error" : undefined;
  return (
    <fieldset className="service-picker" aria-describedby={errorId}>
      <legend>Service</legend>
      <div className="service-options">
        {services.map((service, index) => {
          // The first demo is where the summary's link to `service` lands (unless it is ours).
          const id =
            index === 0 && !own?.selected
              ? fieldId("service.language")
              : `service-${service.language}`;
          const selected = !own?.selected && service.language === value;
          return (
            <label
              key={service.language}
              className={`service-option${selected ? " is-selected" : ""}`}
              htmlFor={id}
            >
              <span className="service-title">
                <input
                  id={id}
                  type="radio"
                  name="service"
                  value={service.language}
                  checked={selected}
                  onChange={() => onChange(service.language)}
                />{" "}
                <strong>{service.language}</strong>
              </span>
              <span className="muted small service-framework">{service.framework}</span>
              <span className="small">Modes:</span>
              <ul className="modes" aria-label={`${service.language} modes`}>
                {service.modes.map((mode) => (
                  <li
                    key={mode.name}
                    className={mode.available ? "mode" : "mode mode-unavailable"}
                    title={mode.why ?? undefined}
                  >
                    {mode.name}
                    {!mode.available && (
                      <span className="mode-why">
                        {" "}
                        — unavailable{mode.why ? `: ${mode.why}` : ""}
                      </span>
                    )}
                  </li>
                ))}
              </ul>
            </label>
          );
        })}
        {own && (
          <label
            className={`service-option${own.selected ? " is-selected" : ""}`}
            htmlFor={fieldId("service")}
          >
            <span className="service-title">
              <input
                id={fieldId("service")}
                type="radio"
                name="service"
                value="command"
                checked={own.selected}
                onChange={own.onSelect}
              />{" "}
              <strong>Your service</strong>
            </span>
            <span className="muted small service-framework">
              A command of yours, started as it is or under its language's zero-code
              instrumentation: no change to its code.
            </span>
            <span className="small">
              {own.launches ?? "Launches: none, zero-code agent, eBPF (Go), its own SDK"}
            </span>
          </label>
        )}
      </div>
      {errorId && (
        <p id={errorId} className="field-error">
          {errors.join("; ")}
        </p>
      )}
    </fieldset>
  );
}
