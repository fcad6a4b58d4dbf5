import type { ReactNode } from "react";
import { formatDuration } from "../../lib/format";
import "./specForm.css";

/** A form's estimated time (or what it still needs to tell) and its submit button. */
export function FormFooter({
  seconds,
  detail,
  needs,
  pending,
  action,
  pendingAction,
}: {
  /** The estimate; null while a field it needs is not a usable number. */
  seconds: number | null;
  /** After the estimate: how it adds up. */
  detail?: ReactNode;
  /** What to enter for an estimate: "the duration and rounds". */
  needs: string;
  pending: boolean;
  action: string;
  pendingAction: string;
}) {
  return (
    <div className="form-footer panel">
      <p className="estimate" aria-live="polite">
        {seconds != null ? (
          <>
            Estimated time: <strong>about {formatDuration(seconds)}</strong>
            {detail}
          </>
        ) : (
          <span className="muted">{`Estimated time: — (enter ${needs})`}</span>
        )}
      </p>
      <button type="submit" className="button-primary" disabled={pending}>
        {pending ? pendingAction : action}
      </button>
    </div>
  );
}
