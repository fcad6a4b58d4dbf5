import { useState } from "react";
import { useMeta } from "../../api/queries";
import { type GrafanaLinks, type PipelineRoundLedger, storedOf } from "../../api/types";
import { Flow, RecollectButton } from "../../components/results/SpanLedger";
import { Empty, ErrorState } from "../../components/States";
import { formatNumber } from "../../lib/format";
import { type TimeRange, traceExploreUrl } from "../../lib/grafana";
import {
  pipelineFlow,
  pipelineRounds,
  pipelineStatus,
  processorCounters,
  storedProblem,
} from "./pipelineLedger";
import { useRecollectStored } from "./usePipelineResults";
import "../../components/results/results.css";
import "./pipelineResults.css";

interface Props {
  experimentId: string;
  ledger: PipelineRoundLedger[];
  /** Variants in spec order. */
  order: string[];
  /** The run's time range, for the Grafana links. */
  range: TimeRange;
}

/**
 * Where each round's spans went, per variant, stage by stage (as the service page's span
 * ledger): from telemetrygen through the lab Collector and its downstreams into Tempo.
 */
export function PipelineLedger({ experimentId, ledger, order, range }: Props) {
  const rounds = pipelineRounds(ledger);
  const [round, setRound] = useState<number | "every">(rounds[0] ?? 0);
  const grafana = useMeta().data?.grafana ?? null;
  const recollect = useRecollectStored(experimentId);
  const unread = ledger.some((entry) => storedProblem(storedOf(entry)) != null);
  const rank = (name: string) => {
    const index = order.indexOf(name);
    return index < 0 ? order.length : index;
  };
  const shown = ledger
    .filter((entry) => round === "every" || entry.round === round)
    .sort(
      (a, b) =>
        rank(a.configuration) - rank(b.configuration) ||
        a.configuration.localeCompare(b.configuration) ||
        a.round - b.round,
    );

  return (
    <>
      <div className="toolbar">
        {rounds.length > 1 && (
          <label>
            Round{" "}
            <select
              value={String(round)}
              onChange={(event) =>
                setRound(event.target.value === "every" ? "every" : Number(event.target.value))
              }
            >
              {rounds.map((index) => (
                <option key={index} value={index}>
                  round {index + 1}
                </option>
              ))}
              <option value="every">every round</option>
            </select>
          </label>
        )}
        <RecollectButton
          recollect={recollect}
          label="Read Tempo again"
          pendingLabel="Reading…"
          doneLabel="Read again."
          describedBy={unread ? "pipeline-ledger-unread-hint" : undefined}
        />
      </div>
      {unread && (
        <p id="pipeline-ledger-unread-hint" className="banner banner-info small">
          What some rounds left in Tempo is <strong>unknown</strong>: Tempo was not read or did not
          answer. Once it is back, read it again.
        </p>
      )}
      {recollect.isError && (
        <ErrorState title="Could not read Tempo again" error={recollect.error} />
      )}
      {shown.length === 0 ? (
        <Empty>
          <p>No round has a ledger: none completed.</p>
        </Empty>
      ) : (
        <div className="ledger">
          {shown.map((entry) => {
            const title =
              round === "every"
                ? `${entry.configuration}, round ${entry.round + 1}`
                : entry.configuration;
            return (
              <section
                key={`${entry.configuration}-${entry.round}`}
                className="ledger-row"
                aria-label={`${entry.configuration}, round ${entry.round + 1}: Spans`}
                data-configuration={entry.configuration}
                data-round={entry.round}
              >
                <Flow
                  configuration={entry.configuration}
                  title={title}
                  flow={pipelineFlow(entry)}
                  status={pipelineStatus(entry)}
                />
                <RoundExtras entry={entry} grafana={grafana} range={range} />
              </section>
            );
          })}
        </div>
      )}
    </>
  );
}

/** A round's processor counters and its sample traces, linked to Grafana Explore when there is one. */
function RoundExtras({
  entry,
  grafana,
  range,
}: {
  entry: PipelineRoundLedger;
  grafana: GrafanaLinks | null;
  range: TimeRange;
}) {
  const counters = processorCounters(entry);
  const traces = storedOf(entry)?.sample_trace_ids ?? [];
  if (counters.length === 0 && traces.length === 0) return null;
  return (
    <div className="ledger-extras small">
      {counters.length > 0 && (
        <dl className="processor-counters" aria-label="Processor counters">
          {counters.map(([name, value]) => (
            <div key={name}>
              <dt className="mono">{name}</dt>
              <dd>{formatNumber(value, 0)}</dd>
            </div>
          ))}
        </dl>
      )}
      {traces.length > 0 && (
        <p className="sample-traces">
          Sample traces:{" "}
          {traces.map((id, index) => (
            <span key={id}>
              {index > 0 && " "}
              {grafana ? (
                <a
                  className="mono"
                  href={traceExploreUrl(grafana, id, range)}
                  target="_blank"
                  rel="noreferrer"
                  title="Open in Grafana Explore"
                >
                  {id}
                </a>
              ) : (
                <code>{id}</code>
              )}
            </span>
          ))}
        </p>
      )}
    </div>
  );
}
