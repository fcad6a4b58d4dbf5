import { useHealth } from "./useHealth";

export function HealthPanel() {
  const state = useHealth();
  return (
    <section aria-labelledby="health-title" className="panel">
      <h2 id="health-title">Stack</h2>
      {state.kind === "loading" && <p role="status">Checking components…</p>}
      {state.kind === "error" && (
        <p role="alert" className="error">
          Could not reach the backend: {state.message}
        </p>
      )}
      {state.kind === "loaded" && <HealthTable report={state.report} />}
    </section>
  );
}

function HealthTable({ report }: { report: import("./types").HealthReport }) {
  return (
    <table>
      <caption>
        {report.status === "ok" ? "All components ready" : "Some components are not ready"}
      </caption>
      <thead>
        <tr>
          <th scope="col">Component</th>
          <th scope="col">Status</th>
          <th scope="col">Version</th>
          <th scope="col">URL</th>
        </tr>
      </thead>
      <tbody>
        {report.components.map((component) => (
          <tr key={component.name}>
            <th scope="row">{component.name}</th>
            <td className={component.ready ? "ok" : "error"} title={component.detail || undefined}>
              {component.ready
                ? "ready"
                : `not ready${component.detail ? `: ${component.detail}` : ""}`}
            </td>
            <td>{component.version ?? "unknown"}</td>
            <td>
              <code>{component.url}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
