import type { RampStep } from "../../api/types";
import { formatCores, formatNumber, formatSpanRate, MISSING } from "../../lib/format";
import type { RoundRamp } from "./pipelineRounds";
import "./pipelineResults.css";

const count = (value: number | null | undefined) =>
  value == null ? "unknown" : formatNumber(value, 0);

function KeptUp({ step }: { step: RampStep }) {
  if (step.sustained === true) return <span className="ok">kept up</span>;
  if (step.sustained === false)
    return (
      <span className="error">
        not kept up
        {step.why && <span className="muted small"> — {step.why}</span>}
      </span>
    );
  return <span className="muted">unknown</span>;
}

/**
 * Each round's ramp: the rates the lab Collector was held at, whether it kept up with each
 * (accepted all, refused and failed none, its queue not growing) and what stopped it.
 */
export function RampPanel({ ramps }: { ramps: RoundRamp[] }) {
  return (
    <div className="ramps">
      {ramps.map((ramp) => (
        <section
          key={`${ramp.configuration}-${ramp.round}`}
          className="ramp"
          aria-label={`Ramp of ${ramp.configuration}, round ${ramp.round + 1}`}
          data-testid="ramp"
        >
          <h3>
            {ramp.configuration}, round {ramp.round + 1}:{" "}
            {ramp.max_sustainable_spans_per_s != null ? (
              <>up to {formatSpanRate(ramp.max_sustainable_spans_per_s)}</>
            ) : (
              "no rate kept up with"
            )}
          </h3>
          {(ramp.limited_by || ramp.why) && (
            <p className="small">
              {ramp.limited_by && <strong>Limited by: {ramp.limited_by}. </strong>}
              {ramp.why}
            </p>
          )}
          {ramp.steps.length > 0 && (
            <div className="table-scroll">
              <table className="ramp-steps">
                <thead>
                  <tr>
                    <th scope="col">Asked</th>
                    <th scope="col">Achieved</th>
                    <th scope="col">Collector CPU</th>
                    <th scope="col">Refused</th>
                    <th scope="col">Send failed</th>
                    <th scope="col">Not enqueued</th>
                    <th scope="col">Queue</th>
                    <th scope="col">Kept up</th>
                  </tr>
                </thead>
                <tbody>
                  {ramp.steps.map((step) => (
                    <tr
                      key={step.spans_per_s}
                      className={step.sustained === false ? "row-failed" : undefined}
                    >
                      <th scope="row">{formatSpanRate(step.spans_per_s)}</th>
                      <td>{formatSpanRate(step.achieved_spans_per_s)}</td>
                      <td>{step.cpu_cores == null ? MISSING : formatCores(step.cpu_cores)}</td>
                      <td>{count(step.refused)}</td>
                      <td>{count(step.send_failed)}</td>
                      <td>{count(step.enqueue_failed)}</td>
                      <td>{count(step.queue_size)}</td>
                      <td>
                        <KeptUp step={step} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      ))}
    </div>
  );
}
