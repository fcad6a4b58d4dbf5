import { OPENAPI_EXTENSIONS } from "../../api/openapiConstants";
import {
  type ExperimentDetail,
  type ExperimentSpec,
  isPipelineExperiment,
  type PipelineSpec,
} from "../../api/types";
import { DetailHead, Fact } from "../../components/DetailPage";
import { StatusBadge } from "../../components/StatusBadge";
import { SPEC_DEFAULTS } from "../../components/spec-form/form";
import {
  formatDateTime,
  formatDuration,
  formatNumber,
  formatRate,
  formatSpanRate,
  MISSING,
  parseApiDate,
} from "../../lib/format";

export const EXPERIMENTS = { to: "/", label: "Back to the experiments" };

/** Title, status and the spec in one line each: what was measured, how, and when. */
export function ExperimentHeader({ experiment }: { experiment: ExperimentDetail }) {
  const pipeline = isPipelineExperiment(experiment);
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
        {pipeline ? (
          <PipelineFacts experiment={experiment} />
        ) : (
          <ServiceFacts experiment={experiment} />
        )}
        <Fact term="Created">{formatDateTime(experiment.created_at)}</Fact>
        <Fact term="Took">{took == null ? MISSING : formatDuration(took)}</Fact>
      </dl>
    </>
  );
}

function Configurations({ experiment, term }: { experiment: ExperimentDetail; term: string }) {
  return (
    <Fact term={term}>
      {experiment.configurations.map((name, i) => (
        <span key={name}>
          {i > 0 && ", "}
          {name}
          {name === experiment.baseline && <span className="tag">baseline</span>}
        </span>
      ))}
    </Fact>
  );
}

/** The side-by-side phase's length when unset: the measured phase's, up to this cap (the backend's). */
const SIDE_BY_SIDE_DEFAULT_MAX_S =
  OPENAPI_EXTENSIONS.ExperimentSpec["x-estimate"].side_by_side_default_max_s;

/**
 * ", 10 s side by side" (", …, 2 instances each") when the spec asks for the phase (unset: as long
 * as the measured one, at most the backend's cap).
 */
function sideBySideFact(spec: ExperimentSpec): string {
  const seconds =
    spec.load?.side_by_side_s ??
    Math.min(spec.load?.duration_s ?? SPEC_DEFAULTS.duration_s, SIDE_BY_SIDE_DEFAULT_MAX_S);
  if (seconds <= 0 || (spec.configurations?.length ?? 0) < 2) return "";
  const instances = spec.load?.side_by_side_instances ?? 1;
  return `, ${seconds} s side by side${instances > 1 ? `, ${instances} instances each` : ""}`;
}

/** ", then rounds until p50 and CPU per request are within ±5% (up to 30 min)". */
function precisionFact(spec: ExperimentSpec): string {
  const precision = spec.precision;
  if (!precision) return "";
  const until =
    precision.half_width_pct != null
      ? `${precision.metrics.join(", ")} within ±${precision.half_width_pct}%`
      : "every budget line is conclusive";
  return `, then rounds until ${until} (up to ${formatDuration(precision.max_wall_time_s)})`;
}

function ServiceFacts({ experiment }: { experiment: ExperimentDetail }) {
  const spec = experiment.spec as unknown as ExperimentSpec;
  const load = spec.load;
  return (
    <>
      <Fact term="Service">{experiment.service}</Fact>
      <Configurations experiment={experiment} term="Configurations" />
      <Fact term="Load">
        {load
          ? `${formatRate(load.rate)}, ${load.warmup_s ?? 5} s warm-up, ${load.duration_s ?? 20} s measured, ${load.max_throughput_s ?? 10} s max throughput, ${load.connections ?? 16} connections${sideBySideFact(spec)}`
          : MISSING}
      </Fact>
      <Fact term="Rounds">
        {spec.rounds ?? MISSING} (seed {spec.seed ?? 0}){precisionFact(spec)}
      </Fact>
    </>
  );
}

/** A Collector pipeline's spec: the variants, telemetrygen's load and the Collector measured. */
function PipelineFacts({ experiment }: { experiment: ExperimentDetail }) {
  const spec = experiment.spec as unknown as PipelineSpec;
  const load = spec.load;
  const environment = (experiment.environment ?? {}) as { collector?: unknown };
  return (
    <>
      <Fact term="Measures">Collector pipeline</Fact>
      <Configurations experiment={experiment} term="Variants" />
      <Fact term="Load">
        {load
          ? `${formatSpanRate(load.spans_per_s)} in traces of ${load.spans_per_trace ?? 5} spans${
              load.attribute_bytes ? ` (+${formatNumber(load.attribute_bytes, 0)} B attribute)` : ""
            }, ${load.warmup_s ?? 2} s warm-up, ${load.duration_s ?? 20} s measured, ${load.drain_s ?? 6} s drain`
          : MISSING}
      </Fact>
      <Fact term="Rounds">
        {spec.rounds ?? MISSING} (seed {spec.seed ?? 0})
      </Fact>
      {typeof environment.collector === "string" && (
        <Fact term="Collector">
          <span className="mono small">{environment.collector}</span>
        </Fact>
      )}
    </>
  );
}
