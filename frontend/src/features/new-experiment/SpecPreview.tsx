import type { ExperimentSpec } from "../../api/types";

/** `text` as one shell word. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The commands that start the same experiment from a file holding the spec. */
export function specCommands(baseUrl: string, file = "spec.json"): string {
  const base = baseUrl.replace(/\/+$/, "");
  return [
    `tracetax run ${shellQuote(file)}          # from backend/: uv run tracetax run …`,
    `curl -s -XPOST ${shellQuote(`${base}/api/v1/experiments`)} \\`,
    `  -H 'content-type: application/json' -d @${shellQuote(file)}`,
  ].join("\n");
}

/** The spec the form will send, as JSON, for a spec file, `tracetax run` or the API. */
export function SpecPreview({ spec, baseUrl }: { spec: ExperimentSpec; baseUrl: string }) {
  return (
    <details className="spec-preview">
      <summary>The spec as JSON (for a spec file, the CLI or the API)</summary>
      <pre className="code-block" data-testid="spec-json">
        {JSON.stringify(spec, null, 2)}
      </pre>
      <p className="muted small">Saved as spec.json, the same experiment starts with:</p>
      <pre className="code-block" data-testid="spec-commands">
        {specCommands(baseUrl)}
      </pre>
    </details>
  );
}
