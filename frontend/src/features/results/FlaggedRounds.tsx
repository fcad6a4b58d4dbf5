/**
 * The rounds in which other processes used the service's cores during a measured phase
 * (Diagnostics.flagged_rounds): kept, but their figures are suspect. Nothing when none was.
 */
export function FlaggedRounds({ flagged }: { flagged: readonly string[] }) {
  if (flagged.length === 0) return null;
  return (
    <div className="banner banner-warning" role="status" data-testid="flagged-rounds">
      <p>
        <strong>Interference:</strong> other processes ran on the service's cores during{" "}
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
