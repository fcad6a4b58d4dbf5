import { type FormEvent, useState } from "react";
import { errorMessage } from "../../api/client";
import type { PipelineRecommendation } from "../../api/types";
import { formatBytes, formatCores, formatSpanRate, MISSING } from "../../lib/format";
import { limiterText, parseTarget } from "./pipelineRecommendation";
import { usePipelineSizing } from "./usePipelineResults";
import "../../components/results/recommendation.css";
import "./pipelineResults.css";

/**
 * The recommendation, sized for the rate the experiment sent or for one typed in (the API sizes
 * it again: GET …/diagnostics?target_spans_per_s=N).
 */
export function PipelineRecommendationSection({
  experimentId,
  measured,
}: {
  experimentId: string;
  /** The recommendation of the diagnostics already loaded: sized for the experiment's own rate. */
  measured: PipelineRecommendation;
}) {
  const [target, setTarget] = useState<number | null>(null);
  const [draft, setDraft] = useState(String(measured.target_spans_per_s));
  const [problem, setProblem] = useState<string | null>(null);
  const sized = usePipelineSizing(experimentId, target);
  const recommendation = target != null && sized.data ? sized.data.recommendation : measured;
  const sizing = target != null && (sized.isPlaceholderData || sized.isPending);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = parseTarget(draft);
    if ("error" in parsed) {
      setProblem(parsed.error);
      return;
    }
    setProblem(null);
    setTarget(parsed.target === measured.target_spans_per_s ? null : parsed.target);
  };
  const reset = () => {
    setTarget(null);
    setProblem(null);
    setDraft(String(measured.target_spans_per_s));
  };

  return (
    <>
      <form className="sizing-target" onSubmit={submit} noValidate>
        <label htmlFor="sizing-target">Size for (spans/s)</label>
        <input
          id="sizing-target"
          type="number"
          inputMode="decimal"
          min="1"
          step="any"
          value={draft}
          aria-invalid={problem != null || undefined}
          aria-describedby={problem ? "sizing-target-error" : undefined}
          onChange={(event) => setDraft(event.target.value)}
        />
        <button type="submit" className="button-small" disabled={sizing}>
          Size
        </button>
        {target != null && (
          <button type="button" className="button-small" onClick={reset}>
            Back to {formatSpanRate(measured.target_spans_per_s)}
          </button>
        )}
        <span className="small muted" aria-live="polite">
          {sizing ? `Sizing for ${formatSpanRate(target)}…` : ""}
        </span>
        {problem && (
          <p id="sizing-target-error" className="field-error">
            {problem}
          </p>
        )}
      </form>
      {target != null && sized.isError && (
        <p className="banner banner-error" role="alert">
          Could not size for {formatSpanRate(target)}: {errorMessage(sized.error)}
        </p>
      )}
      <PipelineRecommendationPanel recommendation={recommendation} />
    </>
  );
}

/** The pipeline to run at a span rate, each variant sized from what was measured. */
export function PipelineRecommendationPanel({
  recommendation,
}: {
  recommendation: PipelineRecommendation;
}) {
  const { sizing, evidence, batch, trace_holding: traceHolding } = recommendation;
  return (
    <div className="recommendation" data-testid="pipeline-recommendation">
      {(batch || traceHolding) && (
        <dl className="setting">
          {batch && (
            <div>
              <dt>Batch settings</dt>
              <dd>
                <code>{batch}</code>
              </dd>
            </div>
          )}
          {traceHolding && (
            <div>
              <dt>Trace-holding processor</dt>
              <dd>
                <code>{traceHolding}</code>
              </dd>
            </div>
          )}
        </dl>
      )}
      {sizing.length > 0 && (
        <div className="table-scroll">
          <table className="sizing">
            <caption>
              Sized for <strong>{formatSpanRate(recommendation.target_spans_per_s)}</strong> from
              what each variant measured: cores interpolated along its ramp (or scaled from its
              cores per 10k spans/s), memory from its peak RSS, with a memory_limiter that holds it.
            </caption>
            <thead>
              <tr>
                <th scope="col">Variant</th>
                <th scope="col">Cores</th>
                <th scope="col">Peak RSS</th>
                <th scope="col">memory_limiter</th>
                <th scope="col">Container memory</th>
                <th scope="col">Keeps up</th>
              </tr>
            </thead>
            <tbody>
              {sizing.map((row) => (
                <tr key={row.variant} data-variant={row.variant}>
                  <th scope="row">{row.variant}</th>
                  <td title={row.cores_source}>
                    {row.cores == null ? "unknown" : formatCores(row.cores)}
                    <div className="muted small">{row.cores_source}</div>
                  </td>
                  <td title={row.memory_source}>
                    {row.peak_rss_bytes == null ? "unknown" : formatBytes(row.peak_rss_bytes)}
                    <div className="muted small">{row.memory_source}</div>
                  </td>
                  <td className="mono small">{limiterText(row.memory_limiter) ?? MISSING}</td>
                  <td>
                    {row.container_memory_mib == null ? MISSING : `${row.container_memory_mib} MiB`}
                  </td>
                  <td>
                    {row.keeps_up == null ? (
                      <span className="muted">not measured (no ramp)</span>
                    ) : row.keeps_up ? (
                      "yes"
                    ) : (
                      <span className="error">no</span>
                    )}
                    {row.note && <div className="muted small">{row.note}</div>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {evidence.length > 0 && (
        <>
          <h3>What it stands on</h3>
          <ul className="evidence-lines small">
            {evidence.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
