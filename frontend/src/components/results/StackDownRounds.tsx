import { Link } from "react-router";
import type { RoundRaw, RoundSummary } from "../../api/types";
import { type StackSubject, stackDownRounds, stackDownSentence } from "./stackHealth";

/**
 * The completed rounds during which a component of the stack (its Collector, Tempo, Loki, the
 * metrics store) was not ready before or after (`stack_health`): kept, but what the
 * component would have counted or stored of them is unknown, never 0. Nothing when none was.
 */
export function StackDownRounds({
  rounds,
  subject = "service",
}: {
  rounds: readonly (RoundSummary | RoundRaw)[];
  subject?: StackSubject;
}) {
  const down = stackDownRounds(rounds);
  if (down.length === 0) return null;
  return (
    <div className="banner banner-warning" role="status" data-testid="stack-down-rounds">
      <p>
        <strong>Stack down:</strong> a component of the stack was not ready before or after{" "}
        {down.length === 1 ? "a round" : `${down.length} rounds`}; what it would have counted or
        stored of {down.length === 1 ? "it" : "them"} cannot be trusted.
      </p>
      <ul>
        {down.map((round) => (
          <li key={round.label}>{stackDownSentence(round, subject)}.</li>
        ))}
      </ul>
      <p className="small">
        The <a href="#rounds-title">rounds</a> below give each component's reason. Check{" "}
        <Link to="/stack">the stack's health</Link> and run the experiment again to measure every
        stage.
      </p>
    </div>
  );
}
