/**
 * The rounds in which other processes used the measured cores (the service's, or a pipeline's
 * lab Collector's) during a measured phase (`flagged_rounds`): kept, but their figures are
 * suspect. Nothing when none was.
 */
export function FlaggedRounds({
  flagged,
  measured = "service",
}: {
  flagged: readonly string[];
  /** What runs on the measured cores: "service", "lab Collector". */
  measured?: string;
}) {
  if (flagged.length === 0) return null;
  return (
    <div className="banner banner-warning" role="status" data-testid="flagged-rounds">
      <p>
        <strong>Interference:</strong> other processes ran on the {measured}'s cores during{" "}
        {flagged.join(", ")}; {flagged.length === 1 ? "this round is" : "these rounds are"} kept but{" "}
        {flagged.length === 1 ? "its" : "their"} figures are suspect.
      </p>
      <p className="small">
        The <a href="#rounds-title">rounds</a> below say which processes, and how much CPU they
        took. Run the experiment again on a quieter machine to trust these figures.
      </p>
    </div>
  );
}
