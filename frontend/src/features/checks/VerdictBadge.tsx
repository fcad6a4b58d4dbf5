import { StatusBadge } from "../../components/StatusBadge";

const VERDICTS = ["pass", "fail", "inconclusive", "error", "unknown"];

/** A check's or a budget line's verdict; while there is none, the check's status. */
export function VerdictBadge({ verdict, status }: { verdict?: string | null; status?: string }) {
  if (!verdict) return status ? <StatusBadge status={status} /> : null;
  const known = VERDICTS.includes(verdict) ? verdict : "unknown";
  return <span className={`badge badge-verdict-${known}`}>{verdict}</span>;
}
