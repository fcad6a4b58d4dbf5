import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { api, errorMessage, unwrap } from "../../api/client";
import { queryKeys } from "../../api/queries";
import { type ExperimentDetail, isPipelineExperiment, type ProgressEvent } from "../../api/types";
import { CancelButton } from "../../components/CancelButton";
import {
  formatDuration,
  formatMicros,
  formatRate,
  formatUtilization,
  MISSING,
} from "../../lib/format";
import {
  describePosition,
  nextReading,
  overallFraction,
  phaseFraction,
  phaseLabel,
  project,
  type Reading,
} from "./progress";
import { type StreamState, useProgress } from "./useProgress";
import "./liveRun.css";

const STREAM_LABELS: Record<StreamState, string> = {
  connecting: "connecting…",
  open: "live",
  reconnecting: "connection lost, reconnecting…",
  closed: "finished",
  failed: "live progress unavailable; refreshing every few seconds",
};

/** Progress of a queued or running experiment from its event stream, and a cancel button. */
export function LiveRun({ experiment }: { experiment: ExperimentDetail }) {
  const queryClient = useQueryClient();
  const pipeline = isPipelineExperiment(experiment);
  const lastSlot = useRef<number | null>(null);
  const [reading, setReading] = useState<Reading | null>(null);
  const { event, receivedAt, stream } = useProgress(experiment.id, true, {
    onEvent: (progress) => {
      setReading((previous) => nextReading(previous, progress));
      // A new run slot means the previous round was stored: refresh the rounds table.
      const slot = progress.slot ?? null;
      if (slot !== lastSlot.current || progress.status !== experiment.status) {
        lastSlot.current = slot;
        queryClient.invalidateQueries({ queryKey: queryKeys.detail(experiment.id) });
      }
    },
    onFinished: () => queryClient.invalidateQueries({ queryKey: queryKeys.all }),
  });

  const now = useNow(500, stream === "open");

  const cancel = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/v1/experiments/{experiment_id}/cancel", {
          params: { path: { experiment_id: experiment.id } },
        }),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.all }),
  });

  return (
    <section className="panel live-run" aria-labelledby="live-title">
      <div className="live-head">
        <h2 id="live-title">Live progress</h2>
        <span className={`stream stream-${stream}`}>
          <span className="dot" aria-hidden="true" /> {STREAM_LABELS[stream]}
        </span>
      </div>
      {event ? (
        <ProgressView
          event={project(event, stream === "open" ? (now - receivedAt) / 1000 : 0)}
          reading={reading}
          pipeline={pipeline}
        />
      ) : (
        <p role="status" className="muted">
          {experiment.status === "queued"
            ? `Queued${experiment.queue_position ? ` at position ${experiment.queue_position}` : ""}; ${experiment.waiting_for ?? "waiting for the first progress event…"}`
            : "Waiting for the first progress event…"}
        </p>
      )}
      <div className="live-actions">
        <CancelButton mutation={cancel} label="Cancel experiment" doneLabel="Cancelled" />
        <span className="muted small">
          {pipeline
            ? "Stops the Collectors and telemetrygen at once."
            : "Stops the service and the load generator at once."}
        </span>
        {cancel.isError && (
          <p role="alert" className="error">
            Could not cancel: {errorMessage(cancel.error)}
          </p>
        )}
      </div>
    </section>
  );
}

/** performance.now(), refreshed every `intervalMs` while `enabled`. */
function useNow(intervalMs: number, enabled: boolean): number {
  const [now, setNow] = useState(() => performance.now());
  useEffect(() => {
    if (!enabled) return;
    const timer = setInterval(() => setNow(performance.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs, enabled]);
  return now;
}

function Bar({ label, fraction }: { label: string; fraction: number | null }) {
  const percent = fraction == null ? null : Math.round(fraction * 100);
  return (
    <div className="bar">
      <div className="bar-label">
        <span>{label}</span>
        <span>{percent == null ? MISSING : `${percent} %`}</span>
      </div>
      <div
        className="bar-track"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent ?? undefined}
      >
        <div className="bar-fill" style={{ width: `${percent ?? 0}%` }} />
      </div>
    </div>
  );
}

export function ProgressView({
  event,
  reading,
  pipeline = false,
}: {
  event: ProgressEvent;
  reading: Reading | null;
  /** A Collector pipeline's run: no request rate or latency, a drain after each measured phase. */
  pipeline?: boolean;
}) {
  const position = describePosition(event);
  const label = phaseLabel(event.phase, pipeline);
  const source = reading
    ? `${phaseLabel(reading.phase, pipeline).toLowerCase()}${reading.configuration ? `, ${reading.configuration}` : ""}`
    : null;
  const phaseShare = phaseFraction(event);
  return (
    <div className="progress-view" data-phase={event.phase}>
      <p className="phase" aria-live="polite">
        <strong>{label}</strong>
        {event.phase === "queued" && event.queue_position != null && (
          <> — position {event.queue_position} in the queue</>
        )}
        {position && <span className="muted"> · {position}</span>}
      </p>
      {event.message && <p className="muted">{event.message}</p>}
      <Bar label="Overall" fraction={overallFraction(event)} />
      {phaseShare != null && (
        <Bar
          key={`${event.slot}-${event.phase}`}
          label={`${label} (this run)`}
          fraction={phaseShare}
        />
      )}
      <dl className="tiles">
        <div>
          <dt>Elapsed</dt>
          <dd>{formatDuration(event.elapsed_s)}</dd>
        </div>
        <div>
          <dt>Remaining</dt>
          <dd>
            {event.remaining_s == null ? MISSING : `about ${formatDuration(event.remaining_s)}`}
          </dd>
        </div>
        {!pipeline && (
          <>
            <div>
              <dt>Rate</dt>
              <dd>{formatRate(reading?.rps)}</dd>
            </div>
            <div>
              <dt>p99</dt>
              <dd>{formatMicros(reading?.p99_us)}</dd>
            </div>
          </>
        )}
        {(!pipeline || reading?.cpu != null) && (
          <div>
            <dt>{pipeline ? "Collector CPU" : "Service CPU"}</dt>
            <dd>{formatUtilization(reading?.cpu)}</dd>
          </div>
        )}
      </dl>
      {source && <p className="muted small reading-source">Latest reading: {source}.</p>}
      {pipeline && event.phase === "measuring" && (
        <p className="muted small">
          telemetrygen sends spans at the asked rate; the Collectors' counters are read after the
          drain, so the figures arrive with the results.
        </p>
      )}
      {pipeline && event.phase === "draining" && (
        <p className="muted small" data-testid="draining-note">
          The load has stopped: the pipeline passes on what it still holds (a batch waiting for its
          timeout, traces waiting for a sampling decision) before its counters are read.
        </p>
      )}
      {!pipeline && event.phase === "measuring" && (
        <p className="muted small">
          During the measured phase, rate and p99 arrive when the phase ends (the load generator
          writes its request log at the end, so the tail is not distorted).
        </p>
      )}
    </div>
  );
}
