import type { ComponentRestarts, HealthReport } from "../../api/types";
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

/** "2 (last: killed by SIGKILL)": what the stack's watcher restarted; "–" outside a native stack. */
function restartsText(entry: ComponentRestarts | undefined): string {
  if (!entry) return "–";
  const last = entry.last_exit ? ` (last: ${entry.last_exit})` : "";
  const down = entry.state === "running" ? "" : `; ${entry.state}`;
  return `${entry.restarts}${last}${down}`;
}

function HealthTable({ report }: { report: HealthReport }) {
  const supervision = report.supervision;
  const restarts = new Map((supervision?.components ?? []).map((entry) => [entry.name, entry]));
  return (
    <div className="table-scroll">
      {supervision && (
        <p className={supervision.watching ? "muted small" : "error small"}>
          Stack watcher: {supervision.detail}
        </p>
      )}
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
            {supervision && <th scope="col">Restarts</th>}
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
              {supervision && <td>{restartsText(restarts.get(component.name))}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
