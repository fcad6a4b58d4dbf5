import type { PipelineAggregates, PipelineDiagnostics } from "../../api/types";
import { pipelineSideBySideLines } from "./pipelineComparison";

/**
 * Under a pipeline's comparison table, when its rounds ran the side-by-side phase: which figures
 * were paired there and in which rounds (the diagnostics' note), and the rounds whose phase
 * failed for a variant (those rounds are paired from each variant alone).
 */
export function PipelineSideBySideNotes({
  configurations,
  diagnostics,
  totalRounds,
}: {
  configurations: readonly PipelineAggregates[];
  diagnostics: PipelineDiagnostics | undefined;
  /** The rounds the experiment ran (the most any variant completed). */
  totalRounds: number;
}) {
  const { note, problems } = pipelineSideBySideLines(configurations, diagnostics, totalRounds);
  if (!note && problems.length === 0) return null;
  return (
    <div className="side-by-side-notes">
      {note && (
        <p className="muted small" data-testid="side-by-side-note">
          {note}
        </p>
      )}
      {problems.length > 0 && (
        <ul className="small warning" data-testid="side-by-side-problems">
          {problems.map((problem) => (
            <li key={problem}>Side by side failed in {problem}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
