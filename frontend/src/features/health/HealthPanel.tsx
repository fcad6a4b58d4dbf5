import type { HealthReport } from "../../api/types";
import { QueryStates } from "../../components/States";
import { useHealth } from "./useHealth";

export function HealthPanel() {
  const health = useHealth();
  return (
    <section aria-labelledby="health-title" className="panel">
      <h2 id="health-title">Components</h2>
      <QueryStates
        query={health}
        loading="Checking components…"
        error="Could not reach the backend"
      >
        {(report) => <HealthTable report={report} />}
      </QueryStates>
    </section>
  );
}

function HealthTable({ report }: { report: HealthReport }) {
  return (
    <div className="table-scroll">
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
              <td
                className={component.ready ? "ok" : "error"}
                title={component.detail || undefined}
              >
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
    </div>
  );
}
