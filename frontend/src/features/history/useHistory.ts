// One metric's history of a configuration (GET /api/v1/history), each metric its own query so a
// chart shows as soon as its series is there and an error stays beside its chart.

import { useQueries } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client";
import { queryKeys } from "../../api/queries";
import type { HistoryFilters } from "../../components/history/historyMetrics";

/** The history of each of `metrics` for these filters; nothing is asked until both are chosen. */
export function useHistorySeries(filters: HistoryFilters, metrics: readonly string[]) {
  const enabled = filters.service !== "" && filters.configuration !== "";
  return useQueries({
    queries: metrics.map((metric) => ({
      queryKey: queryKeys.history({ ...filters, metric }),
      enabled,
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        unwrap(
          api.GET("/api/v1/history", {
            params: {
              query: {
                service: filters.service,
                configuration: filters.configuration,
                metric,
                ...(filters.branch ? { branch: filters.branch } : {}),
                ...(filters.machine ? { machine: filters.machine } : {}),
              },
            },
            signal,
          }),
        ),
    })),
  });
}
