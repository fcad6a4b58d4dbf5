const VERDICTS = ["pass", "fail", "inconclusive", "error", "no_history"];

/** A check's or a judgement's verdict in the checks' colours; "unknown" when there is none. */
export function VerdictTag({ verdict }: { verdict?: string | null }) {
  const known = verdict && VERDICTS.includes(verdict) ? verdict : "unknown";
  const text = verdict === "no_history" ? "no history" : (verdict ?? "unknown");
  return <span className={`badge badge-verdict-${known}`}>{text}</span>;
}
