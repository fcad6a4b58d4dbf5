import type { ServiceInfo } from "../../api/types";
import { fieldId } from "../../api/validation";

interface Props {
  services: ServiceInfo[];
  value: string;
  errors: string[];
  onChange: (language: string) => void;
}

/** The demo service to measure, with the OpenTelemetry modes it has and which can run here. */
export function ServicePicker({ services, value, errors, onChange }: Props) {
  const errorId = errors.length > 0 ? "service-error" : undefined;
  return (
    <fieldset className="service-picker" aria-describedby={errorId}>
      <legend>Service</legend>
      <div className="service-options">
        {services.map((service, index) => {
          const id = index === 0 ? fieldId("service.language") : `service-${service.language}`;
          return (
            <label
              key={service.language}
              className={`service-option${service.language === value ? " is-selected" : ""}`}
              htmlFor={id}
            >
              <span className="service-title">
                <input
                  id={id}
                  type="radio"
                  name="service"
                  value={service.language}
                  checked={service.language === value}
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
      </div>
      {errorId && (
        <p id={errorId} className="field-error">
          {errors.join("; ")}
        </p>
      )}
    </fieldset>
  );
}
