import type { ExperimentDetail, ExperimentSpec } from "../../api/types";
import { DetailHead, Fact } from "../../components/DetailPage";
import { StatusBadge } from "../../components/StatusBadge";
import {
  formatDateTime,
  formatDuration,
  formatRate,
  MISSING,
  parseApiDate,
} from "../../lib/format";

export const EXPERIMENTS = { to: "/", label: "Back to the experiments" };

/** Title, status and the spec in one line each: what was measured, how, and when. */
export function ExperimentHeader({ experiment }: { experiment: ExperimentDetail }) {
  const spec = experiment.spec as unknown as ExperimentSpec;
  const load = spec.load;
  const started = parseApiDate(experiment.started_at);
  const finished = parseApiDate(experiment.finished_at);
  const took = started && finished ? (finished.getTime() - started.getTime()) / 1000 : null;
  return (
    <>
      <DetailHead
        title={
          <>
            {experiment.name || `Experiment ${experiment.id.slice(0, 8)}`}{" "}
            <StatusBadge status={experiment.status} />
          </>
        }
        id={experiment.id}
        back={EXPERIMENTS}
        error={experiment.error}
        errorTone={experiment.status === "cancelled" ? "info" : "error"}
      />
      <dl className="spec-summary">
        <Fact term="Service">{experiment.service}</Fact>
        <Fact term="Configurations">
          {experiment.configurations.map((name, i) => (
            <span key={name}>
              {i > 0 && ", "}
              {name}
              {name === experiment.baseline && <span className="tag">baseline</span>}
            </span>
          ))}
        </Fact>
        <Fact term="Load">
          {load
            ? `${formatRate(load.rate)}, ${load.warmup_s ?? 5} s warm-up, ${load.duration_s ?? 20} s measured, ${load.max_throughput_s ?? 10} s max throughput, ${load.connections ?? 16} connections`
            : MISSING}
        </Fact>
        <Fact term="Rounds">
          {spec.rounds ?? MISSING} (seed {spec.seed ?? 0})
        </Fact>
        <Fact term="Created">{formatDateTime(experiment.created_at)}</Fact>
        <Fact term="Took">{took == null ? MISSING : formatDuration(took)}</Fact>
      </dl>
    </>
  );
}
