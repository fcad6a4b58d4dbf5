import type { Recommendation } from "../../api/types";
import { Empty } from "../../components/States";
import { envLines, evidenceRows, ruleSetting } from "./recommendation";
import "../../components/results/recommendation.css";

/** The recommended setting, its summary, and every rule that fired with its evidence. */
export function RecommendationPanel({ recommendation }: { recommendation: Recommendation }) {
  const env = envLines(recommendation.env);
  return (
    <div className="recommendation" data-testid="recommendation">
      <p className="recommendation-summary">{recommendation.summary}</p>
      {(recommendation.no_telemetry ?? []).map((configuration) => (
        <p key={configuration} className="banner banner-warning" data-testid="no-telemetry">
          <code>{configuration}</code> costs something but produced no span, log or metric: its
          instrumentation is not reaching this service (or not exporting), so its cost buys nothing
          yet.
        </p>
      ))}
      {(recommendation.start_from || recommendation.processor || env.length > 0) && (
        <dl className="setting">
          {recommendation.start_from && (
            <div>
              <dt>Start from</dt>
              <dd>
                <code>{recommendation.start_from}</code>
              </dd>
            </div>
          )}
          {recommendation.processor && (
            <div>
              <dt>Processor</dt>
              <dd>
                <code>{recommendation.processor}</code>
                {recommendation.processor_name && (
                  <span className="muted"> ({recommendation.processor_name})</span>
                )}
              </dd>
            </div>
          )}
          <div className="setting-env">
            <dt>Environment</dt>
            <dd>
              {env.length > 0 ? (
                <pre className="code-block">{env.join("\n")}</pre>
              ) : (
                <span className="muted">no variables to change</span>
              )}
            </dd>
          </div>
        </dl>
      )}
      <h3>Rules that fired</h3>
      {recommendation.rules.length === 0 ? (
        <Empty>
          <p>No rule fired: nothing in this experiment calls for a different setting.</p>
        </Empty>
      ) : (
        <ol className="rules">
          {recommendation.rules.map((rule) => {
            const setting = ruleSetting(rule.setting ?? {});
            const evidence = evidenceRows(rule.evidence ?? {});
            return (
              <li key={`${rule.rule}-${rule.configuration}`} className="rule">
                <p className="rule-head">
                  <code className="rule-name">{rule.rule}</code>{" "}
                  <span className="chip">{rule.configuration}</span>
                </p>
                <p>{rule.message}</p>
                {(setting.processor || setting.env.length > 0) && (
                  <p className="small">
                    <strong>Setting:</strong>{" "}
                    {setting.processor && (
                      <>
                        processor <code>{setting.processor}</code>
                        {setting.env.length > 0 && ", "}
                      </>
                    )}
                    {setting.env.map((line, index) => (
                      <span key={line}>
                        {index > 0 && ", "}
                        <code>{line}</code>
                      </span>
                    ))}
                  </p>
                )}
                {evidence.length > 0 && (
                  <dl className="evidence" aria-label="Evidence">
                    {evidence.map((row) => (
                      <div key={row.label}>
                        <dt>{row.label}</dt>
                        <dd>{row.value}</dd>
                      </div>
                    ))}
                  </dl>
                )}
              </li>
            );
          })}
        </ol>
      )}
      {(recommendation.not_evaluated ?? []).length > 0 && (
        <>
          <h3>Not evaluated</h3>
          <ul className="rules" data-testid="not-evaluated">
            {(recommendation.not_evaluated ?? []).map((skipped) => (
              <li key={`${skipped.rule}-${skipped.configuration}`} className="rule">
                <p className="rule-head">
                  <code className="rule-name">{skipped.rule}</code>{" "}
                  <span className="chip">{skipped.configuration}</span>
                </p>
                <p>{skipped.why}</p>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
