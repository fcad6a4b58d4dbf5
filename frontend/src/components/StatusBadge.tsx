const LABELS: Record<string, string> = {
  queued: "queued",
  running: "running",
  completed: "completed",
  failed: "failed",
  cancelled: "cancelled",
  interrupted: "interrupted",
  pending: "pending",
};

/** An experiment's or a round's status; the colour repeats what the word says. */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${LABELS[status] ? status : "unknown"}`}>{status}</span>;
}
