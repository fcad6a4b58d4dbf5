import { lazy, Suspense, useEffect, useMemo, useRef } from "react";
import { useSearchParams } from "react-router";
import { DownloadLink } from "../../components/DownloadLink";
import { foldedStacksUrl, useStacks } from "../../components/results/useDiagnostics";
import { Empty, ErrorState, Loading } from "../../components/States";
import { formatNumber } from "../../lib/format";
import {
  categoryLabel,
  countFrames,
  EXPORT_CATEGORIES,
  FRAME_COLORS,
  hasUnattributedExport,
  toFlameData,
  topFrames,
} from "./exportLocation";
import { StackDiffView } from "./StackDiffView";
import type { DiffTarget } from "./useStackDiff";
import "./serviceResults.css";

// d3-flame-graph is loaded with the first flame graph.
const FlameGraphChart = lazy(() =>
  import("./FlameGraphChart").then((module) => ({ default: module.FlameGraphChart })),
);

interface Props {
  experimentId: string;
  /** Configurations that have stack samples. */
  configurations: string[];
  configuration: string;
  onConfiguration: (configuration: string) => void;
  /** The experiment's baseline configuration: what the differential view compares with first. */
  baseline?: string | null;
}

// The page's URL opens the differential view: ?flame=<configuration>&against=<configuration>
// (&against_experiment=<id>: that configuration in another experiment, e.g. an earlier check's).
export const AGAINST_PARAM = "against";
export const AGAINST_EXPERIMENT_PARAM = "against_experiment";

/** What the differential view compares with, from the URL, or null when it is off. */
export function diffTargetFrom(
  params: URLSearchParams,
  experimentId: string,
  configuration: string,
  choices: string[],
): DiffTarget | null {
  const againstExperiment = params.get(AGAINST_EXPERIMENT_PARAM) || null;
  if (!params.has(AGAINST_PARAM) && againstExperiment == null) return null;
  const requested = params.get(AGAINST_PARAM) || null;
  const against = againstExperiment
    ? (requested ?? configuration)
    : requested && requested !== configuration
      ? requested
      : (choices[0] ?? null);
  if (against == null) return null;
  return { experimentId, configuration, against, againstExperiment };
}

const THREAD_LEGEND = [
  { color: FRAME_COLORS["thread-request"], label: "request thread" },
  { color: FRAME_COLORS["thread-background"], label: "background (SDK) thread" },
  { color: FRAME_COLORS["thread-unattributed"], label: "unattributed thread" },
];

/** The flame graph of one configuration, chosen from a select, with its folded stacks. */
export function FlameGraphPanel({
  experimentId,
  configurations,
  configuration,
  onConfiguration,
  baseline = null,
}: Props) {
  const [params, setParams] = useSearchParams();
  // The configurations to compare with: the baseline first, then the others with samples.
  const choices = [...new Set([baseline, ...configurations])].filter(
    (name): name is string => name != null && name !== configuration,
  );
  const target = diffTargetFrom(params, experimentId, configuration, choices);
  const section = useRef<HTMLElement>(null);
  const openedAt = useRef(params.has("flame") || target != null);
  // A link to the flame graph (a check's "where the added cost went") scrolls to it once.
  useEffect(() => {
    if (openedAt.current) section.current?.scrollIntoView?.({ block: "start" });
  }, []);
  const showDiff = (against: string | null) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete(AGAINST_EXPERIMENT_PARAM);
        if (against == null) next.delete(AGAINST_PARAM);
        else next.set(AGAINST_PARAM, against);
        return next;
      },
      { replace: true },
    );
  const stacks = useStacks(experimentId, target ? null : configuration);
  const data = useMemo(() => (stacks.data ? toFlameData(stacks.data.root) : null), [stacks.data]);
  const hottest = useMemo(() => (data ? topFrames(data, 10) : []), [data]);

  return (
    <section className="flame-panel" aria-labelledby="flame-title" ref={section}>
      <div className="section-head">
        <h3 id="flame-title">{target ? "Where the added cost went" : "Flame graph"}</h3>
        <div className="toolbar">
          <label>
            Configuration{" "}
            <select value={configuration} onChange={(event) => onConfiguration(event.target.value)}>
              {configurations.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Show{" "}
            <select
              value={target ? "diff" : "flame"}
              onChange={(event) =>
                showDiff(event.target.value === "diff" ? (choices[0] ?? null) : null)
              }
            >
              <option value="flame">its flame graph</option>
              <option value="diff" disabled={choices.length === 0}>
                where the added cost went
              </option>
            </select>
          </label>
          {target && (
            <label>
              Compare with{" "}
              <select
                value={target.againstExperiment ? "" : (target.against ?? "")}
                onChange={(event) => showDiff(event.target.value)}
              >
                {target.againstExperiment && (
                  <option value="">
                    {target.against} of experiment {target.againstExperiment.slice(0, 8)}
                  </option>
                )}
                {choices.map((name) => (
                  <option key={name} value={name}>
                    {name === baseline ? `${name} (baseline)` : name}
                  </option>
                ))}
              </select>
            </label>
          )}
          {!target && (
            <>
              <DownloadLink
                className="button button-small"
                href={foldedStacksUrl(experimentId, configuration)}
                filename={`tracetax-${experimentId.slice(0, 8)}-${configuration}.folded`}
              >
                Download folded stacks
              </DownloadLink>
              <span className="muted small">for speedscope or flamegraph.pl</span>
            </>
          )}
        </div>
      </div>
      {target && <StackDiffView target={target} />}
      {!target && (
        <>
          <ul className="legend" aria-label="Frame colours">
            {EXPORT_CATEGORIES.map((category) => (
              <li key={category.key}>
                <span
                  className="swatch"
                  style={{ background: category.color }}
                  aria-hidden="true"
                />
                {category.label}
              </li>
            ))}
            {THREAD_LEGEND.map((item) => (
              <li key={item.label}>
                <span className="swatch" style={{ background: item.color }} aria-hidden="true" />
                {item.label}
              </li>
            ))}
          </ul>
          {stacks.isPending && <Loading>Loading the stacks of {configuration}…</Loading>}
          {stacks.isError && (
            <ErrorState
              title={`Could not load the stacks of ${configuration}`}
              error={stacks.error}
              onRetry={() => stacks.refetch()}
            />
          )}
          {stacks.data && data && stacks.data.samples === 0 && (
            <Empty>
              <p>
                No stack samples for {configuration}
                {stacks.data.problems.length > 0 ? `: ${stacks.data.problems.join("; ")}` : "."}
              </p>
            </Empty>
          )}
          {stacks.data && data && stacks.data.samples > 0 && (
            <div
              data-testid="flame-graph"
              data-configuration={configuration}
              data-frames={countFrames(data)}
            >
              <p className="muted small">
                {formatNumber(stacks.data.samples, 0)} samples from{" "}
                {stacks.data.sampler ?? "the sampler"}, all rounds merged. Frames narrower than 0.1
                % of the samples are left out.
              </p>
              {stacks.data.problems.length > 0 && (
                <p className="error small">{stacks.data.problems.join("; ")}</p>
              )}
              {hasUnattributedExport(data) && (
                <p className="small cannot-tell">
                  Some export frames ran where the sampler could not tell a request from the
                  background (for example, in Node, I/O and promise callbacks), so they show as
                  unattributed, as in the bar above.
                </p>
              )}
              <Suspense fallback={<Loading>Loading the flame graph…</Loading>}>
                <FlameGraphChart
                  data={data}
                  label={`Flame graph of ${configuration}: ${formatNumber(stacks.data.samples, 0)} samples`}
                />
              </Suspense>
              <details className="hottest">
                <summary>Hottest functions (self samples)</summary>
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Function</th>
                      <th scope="col">Counts as</th>
                      <th scope="col">Self samples</th>
                    </tr>
                  </thead>
                  <tbody>
                    {hottest.map((frame) => (
                      <tr key={`${frame.category}-${frame.name}`}>
                        <th scope="row" className="mono">
                          {frame.name}
                        </th>
                        <td>
                          <span
                            className="swatch"
                            style={{ background: FRAME_COLORS[frame.category] }}
                            aria-hidden="true"
                          />
                          {categoryLabel(frame.category)}
                        </td>
                        <td className="number">
                          {formatNumber(frame.selfSamples, 0)} ({frame.percent} %)
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </details>
            </div>
          )}
        </>
      )}
    </section>
  );
}
