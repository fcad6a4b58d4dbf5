import type { ConfigurationAggregates, Diagnostics } from "../../api/types";
import { precisionLine, sideBySideLine, sideBySideProblems } from "./sideBySide";

/**
 * Under a service's comparison table: which metrics were paired side by side and in which rounds
 * (the diagnostics' note), what went wrong in a configuration's side-by-side phases, and, when
 * the experiment asked for a precision, whether it was reached.
 */
export function SideBySideNotes({
  configurations,
  diagnostics,
  totalRounds,
}: {
  configurations: readonly ConfigurationAggregates[];
  diagnostics: Diagnostics | undefined;
  /** The rounds the experiment ran (the most any configuration completed). */
  totalRounds: number;
}) {
  const use = diagnostics?.side_by_side;
  const problems = sideBySideProblems(configurations);
  const precision = diagnostics?.precision ? precisionLine(diagnostics.precision) : null;
  if (!use && problems.length === 0 && !precision) return null;
  return (
    <div className="side-by-side-notes">
      {use && (
        <p className="muted small" data-testid="side-by-side-note">
          {sideBySideLine(use, totalRounds)}
        </p>
      )}
      {problems.length > 0 && (
        <ul className="small warning" data-testid="side-by-side-problems">
          {problems.map((problem) => (
            <li key={problem.configuration}>
              <code>{problem.configuration}</code> side by side: {problem.text}
            </li>
          ))}
        </ul>
      )}
      {precision && (
        <p
          className={precision.reached ? "small" : "small warning"}
          data-testid="precision"
          data-reached={precision.reached}
        >
          <strong>{precision.text}</strong>
          {precision.summary && <> — {precision.summary}</>}
        </p>
      )}
    </div>
  );
}
