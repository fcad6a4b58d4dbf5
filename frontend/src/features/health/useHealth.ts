import { useEffect, useState } from "react";
import { getJson } from "../../api/client";
import type { HealthReport } from "./types";

export type HealthState =
  | { kind: "loading" }
  | { kind: "error"; message: string }
  | { kind: "loaded"; report: HealthReport };

/** Polls GET /api/health; 503 still carries the report (some component is not ready). */
export function useHealth(intervalMs = 5000): HealthState {
  const [state, setState] = useState<HealthState>({ kind: "loading" });
  useEffect(() => {
    let cancelled = false;
    const load = () =>
      getJson<HealthReport>("/api/health", [503])
        .then((report) => !cancelled && setState({ kind: "loaded", report }))
        .catch((error: Error) => !cancelled && setState({ kind: "error", message: error.message }));
    load();
    const timer = setInterval(load, intervalMs);
    return () => {
      cancelled = true;
      clearInterval(timer);
    };
  }, [intervalMs]);
  return state;
}
