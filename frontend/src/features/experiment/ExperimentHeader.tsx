import { Link } from "react-router";
import type { ExperimentDetail, ExperimentSpec } from "../../api/types";
import { StatusBadge } from "../../components/StatusBadge";
import {
  formatDateTime,
  formatDuration,
  formatRate,
  MISSING,
  parseApiDate,
} from "../../lib/format";

/** Title, status and the spec in one line each: what was measured, how, and when. */
export function ExperimentHeader({ experiment }: { experiment: ExperimentDetail }) {
  const spec = experiment.spec as unknown as ExperimentSpec;
  const load = spec.load;
  const started = parseApiDate(experiment.started_at);
  const finished = parseApiDate(experiment.finished_at);
  const took = started && finished ? (finished.getTime() - started.getTime()) / 1000 : null;
  return (
    <>
      <div className="page-head">
        <div>
          <h1>
            {experiment.name || `Experiment ${experiment.id.slice(0, 8)}`}{" "}
            <StatusBadge status={experiment.status} />
          </h1>
          <p className="muted small mono">{experiment.id}</p>
        </div>
        <Link to="/">Back to the experiments</Link>
      </div>
      {experiment.error && (
        <p
          className={`banner ${experiment.status === "cancelled" ? "banner-info" : "banner-error"}`}
          role="status"
        >
          {experiment.error}
        </p>
      )}
      <dl className="spec-summary">
        <div>
          <dt>Service</dt>
          <dd>{experiment.service}</dd>
        </div>
        <div>
          <dt>Configurations</dt>
          <dd>
            {experiment.configurations.map((name, i) => (
              <span key={name}>
                {i > 0 && ", "}
                {name}
                {name === experiment.baseline && <span className="tag">baseline</span>}
              </span>
            ))}
          </dd>
        </div>
        <div>
          <dt>Load</dt>
          <dd>
            {load
              ? `${formatRate(load.rate)}, ${load.warmup_s ?? 5} s warm-up, ${load.duration_s ?? 20} s measured, ${load.max_throughput_s ?? 10} s max throughput, ${load.connections ?? 16} connections`
              : MISSING}
          </dd>
        </div>
        <div>
          <dt>Rounds</dt>
          <dd>
            {spec.rounds ?? MISSING} (seed {spec.seed ?? 0})
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatDateTime(experiment.created_at)}</dd>
        </div>
        <div>
          <dt>Took</dt>
          <dd>{took == null ? MISSING : formatDuration(took)}</dd>
        </div>
      </dl>
    </>
  );
}
