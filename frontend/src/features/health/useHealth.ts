import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client";
import { queryKeys } from "../../api/queries";

/** Polls GET /api/health; a 503 still carries the report (some component is not ready). */
export function useHealth(intervalMs = 5000) {
  return useQuery({
    queryKey: queryKeys.health,
    queryFn: ({ signal }) => unwrap(api.GET("/api/health", { signal }), [503]),
    refetchInterval: intervalMs,
  });
}
