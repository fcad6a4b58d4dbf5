import { HealthPanel } from "./features/health/HealthPanel";

// The application shell. Experiments, results and CI checks arrive as features under
// src/features/ in later issues; for now it shows the stack it runs on.
export function App() {
  return (
    <div className="app">
      <header className="app-header">
        <h1>TraceTax</h1>
        <p>What OpenTelemetry costs your service, measured against real backends.</p>
      </header>
      <main>
        <HealthPanel />
      </main>
    </div>
  );
}
