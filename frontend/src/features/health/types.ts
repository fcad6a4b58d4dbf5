// Mirrors tracetax.health.HealthReport (GET /api/health).
export interface ComponentHealth {
  name: string;
  url: string;
  ready: boolean;
  version: string | null;
  detail: string;
}

export interface HealthReport {
  status: "ok" | "degraded";
  components: ComponentHealth[];
}
