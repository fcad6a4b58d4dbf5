import { useDocumentTitle } from "../../lib/useDocumentTitle";
import { HealthPanel } from "./HealthPanel";

/** The stack TraceTax runs on: the backend and every component it reads results back from. */
export function StackPage() {
  useDocumentTitle("Stack");
  return (
    <>
      <div className="page-head">
        <h1>Stack</h1>
        <p className="muted">
          The components TraceTax measures against; re-checked every five seconds.
        </p>
      </div>
      <HealthPanel />
    </>
  );
}
