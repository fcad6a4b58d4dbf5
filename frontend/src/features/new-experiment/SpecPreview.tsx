import type { ExperimentSpec } from "../../api/types";
import { useSpecCommands } from "./useSpecCommands";

/** The spec the form will send, as JSON, for a spec file, `tracetax run` or the API; the
 * commands that start it from the file are the backend's (useSpecCommands). */
export function SpecPreview({ spec, baseUrl }: { spec: ExperimentSpec; baseUrl: string }) {
  const commands = useSpecCommands(spec, baseUrl);
  return (
    <details className="spec-preview">
      <summary>The spec as JSON (for a spec file, the CLI or the API)</summary>
      <pre className="code-block" data-testid="spec-json">
        {JSON.stringify(spec, null, 2)}
      </pre>
      {commands ? (
        <>
          <p className="muted small">
            Saved as {commands.file}, the same experiment starts with (from backend/:{" "}
            <code>uv run tracetax run …</code>):
          </p>
          <pre className="code-block" data-testid="spec-commands">
            {`${commands.cli}\n${commands.curl}`}
          </pre>
        </>
      ) : (
        <p className="muted small">
          The commands that start it from a file show once the API accepts the spec.
        </p>
      )}
    </details>
  );
}
