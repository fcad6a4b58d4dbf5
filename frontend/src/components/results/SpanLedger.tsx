import { useId, useState } from "react";
import type { RoundLedger } from "../../api/types";
import { formatNumber } from "../../lib/format";
import { Empty, ErrorState } from "../States";
import {
  type CountStep,
  combineRounds,
  type FlowStep,
  hasUnknownStages,
  ledgerFlow,
  ledgerRounds,
  SIGNALS,
  type SignalFlow,
  type SignalKey,
} from "./ledger";
import { useRecollectLedger } from "./useDiagnostics";
import "./results.css";

interface Props {
  experimentId: string;
  ledger: RoundLedger[];
  /** Configurations in spec order. */
  order: string[];
}

/** The span ledger per configuration: where every span (log record, counter increment) went. */
export function SpanLedger({ experimentId, ledger, order }: Props) {
  const [signal, setSignal] = useState<SignalKey>("spans");
  const [round, setRound] = useState<number | "all">("all");
  const recollect = useRecollectLedger(experimentId);
  const rounds = ledgerRounds(ledger);
  const unknown = hasUnknownStages(ledger);
  const signalName = useId();
  const configurations = [
    ...order.filter((name) => ledger.some((r) => r.configuration === name)),
    ...[...new Set(ledger.map((r) => r.configuration))].filter((name) => !order.includes(name)),
  ];

  return (
    <>
      <div className="toolbar">
        <fieldset className="segmented">
          <legend className="visually-hidden">Signal</legend>
          {SIGNALS.map((s) => (
            <label key={s.key} className={signal === s.key ? "is-selected" : undefined}>
              <input
                type="radio"
                name={signalName}
                value={s.key}
                checked={signal === s.key}
                onChange={() => setSignal(s.key)}
              />
              {s.label}
            </label>
          ))}
        </fieldset>
        {rounds.length > 1 && (
          <label>
            Rounds{" "}
            <select
              value={String(round)}
              onChange={(event) =>
                setRound(event.target.value === "all" ? "all" : Number(event.target.value))
              }
            >
              <option value="all">all rounds, summed</option>
              {rounds.map((index) => (
                <option key={index} value={index}>
                  round {index + 1}
                </option>
              ))}
            </select>
          </label>
        )}
        <RecollectButton
          recollect={recollect}
          label="Collect the ledger again"
          pendingLabel="Collecting…"
          doneLabel="Collected again."
          describedBy={unknown ? "ledger-unknown-hint" : undefined}
        />
      </div>
      {unknown && (
        <p id="ledger-unknown-hint" className="banner banner-info small">
          Some stages are <strong>unknown</strong>: a backend did not answer when the ledger was
          collected. Once it is back, collect the ledger again.
        </p>
      )}
      {recollect.isError && (
        <ErrorState title="Could not collect the ledger again" error={recollect.error} />
      )}
      {ledger.length === 0 ? (
        <Empty>
          <p>No round has a ledger: none completed, or it was never collected.</p>
        </Empty>
      ) : (
        <div className="ledger">
          {configurations.map((configuration) => {
            const signals = combineRounds(ledger, configuration, round);
            const chosen = signals.find((s) => s.signal === signal);
            return (
              <section
                key={configuration}
                className="ledger-row"
                aria-label={`${configuration}: ${SIGNALS.find((s) => s.key === signal)?.label}`}
                data-configuration={configuration}
              >
                {chosen ? (
                  <Flow configuration={configuration} flow={ledgerFlow(chosen)} />
                ) : (
                  <>
                    <h3>{configuration}</h3>
                    <p className="muted small">
                      This configuration sends no{" "}
                      {SIGNALS.find((s) => s.key === signal)?.label.toLowerCase()}
                      {round === "all" ? "" : " in this round"}.
                    </p>
                  </>
                )}
              </section>
            );
          })}
        </div>
      )}
    </>
  );
}

function Count({ step }: { step: CountStep }) {
  const details = step.details ?? [];
  return (
    <li
      className={`flow-count${step.value == null ? " is-unknown" : ""}`}
      data-stage={step.stage}
      title={step.hint}
    >
      <span className="flow-label">{step.label}</span>
      {step.value == null ? (
        <>
          <strong className="flow-value">unknown</strong>
          <span className="flow-reason">{step.reason}</span>
        </>
      ) : (
        <strong className="flow-value">{formatNumber(step.value, 0)}</strong>
      )}
      {details.length > 0 && (
        <ul className="flow-details">
          {details.map((detail) => (
            <li key={detail.label}>
              {detail.label}: <strong>{detail.text}</strong>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

function Hop({ step }: { step: Extract<FlowStep, { type: "hop" }> }) {
  return (
    <li className="flow-hop" aria-label="then">
      <span className="flow-arrow" aria-hidden="true">
        →
      </span>
      {step.items.length > 0 && (
        <ul className="flow-losses">
          {step.items.map((item) =>
            item.type === "gap" ? (
              <li
                key={`gap-${item.label}`}
                className={`flow-loss is-gap${item.lost ? " is-lost" : ""}`}
              >
                {item.value > 0 ? "−" : "+"}
                {formatNumber(Math.abs(item.value), 0)} {item.label}
              </li>
            ) : item.value == null ? (
              <li key={item.stage} className="flow-loss is-unknown" data-stage={item.stage}>
                unknown {item.label}
                <span className="flow-reason">{item.reason}</span>
              </li>
            ) : (
              <li
                key={item.stage}
                className={`flow-loss${item.value > 0 && !item.kept ? " is-lost" : ""}`}
                data-stage={item.stage}
                title={item.hint}
              >
                {item.value > 0 ? "−" : ""}
                {formatNumber(item.value, 0)} {item.label}
              </li>
            ),
          )}
        </ul>
      )}
    </li>
  );
}

/** The count a hop follows, for its key ("start" before the first count). */
function stageBefore(steps: FlowStep[], index: number): string {
  const before = steps[index - 1];
  return before?.type === "count" ? before.stage : "start";
}

/** A flow's state beside its title: balanced, lost, unknown. */
export interface FlowStatus {
  className: "tag-ok" | "tag-bad" | "tag-unknown";
  text: string;
}

/**
 * One ledger as a flow of counts with what each hop lost between them; `status` replaces the
 * balance the flow itself reports (a pipeline's comes from the API's `lost`).
 */
export function Flow({
  configuration,
  flow,
  status: given,
  title,
}: {
  configuration: string;
  flow: SignalFlow;
  status?: FlowStatus;
  /** The heading; the configuration's name by default. */
  title?: string;
}) {
  const status: FlowStatus =
    given ??
    (flow.balanced === true
      ? { className: "tag-ok", text: "balanced" }
      : flow.balanced === false
        ? { className: "tag-bad", text: `${formatNumber(flow.lost, 0)} lost` }
        : flow.unknown > 0
          ? { className: "tag-unknown", text: `${flow.unknown} unknown` }
          : { className: "tag-unknown", text: "not checked" });
  return (
    <>
      <div className="flow-head">
        <h3>{title ?? configuration}</h3>
        <span className={`tag ${status.className}`}>{status.text}</span>
        {flow.balanced === false && (
          <p className="small muted">expected ≠ stored + counted losses</p>
        )}
        {flow.note && <p className="small muted">{flow.note}</p>}
      </div>
      <ol className="flow" aria-label={`${flow.label}, ${flow.range}`}>
        {flow.steps.map((step, index) =>
          step.type === "count" ? (
            <Count key={step.stage} step={step} />
          ) : (
            <Hop key={`after-${stageBefore(flow.steps, index)}`} step={step} />
          ),
        )}
      </ol>
    </>
  );
}

interface RecollectButtonProps {
  /** The mutation that reads the backends again. */
  recollect: { mutate: () => void; isPending: boolean; isSuccess: boolean };
  label: string;
  pendingLabel: string;
  doneLabel: string;
  /** The hint saying why reading again may help, when it shows. */
  describedBy?: string;
}

/** Read a finished run's telemetry from the backends again, and say when it has been. */
export function RecollectButton({
  recollect,
  label,
  pendingLabel,
  doneLabel,
  describedBy,
}: RecollectButtonProps) {
  return (
    <>
      <button
        type="button"
        onClick={() => recollect.mutate()}
        disabled={recollect.isPending}
        aria-describedby={describedBy}
      >
        {recollect.isPending ? pendingLabel : label}
      </button>
      {recollect.isSuccess && !recollect.isPending && (
        <span className="ok small" role="status">
          {doneLabel}
        </span>
      )}
    </>
  );
}
