// Queries of a finished experiment's diagnostics and of what they point to: the stacks of a
// configuration, a sample trace in Tempo, the run's logs in Loki; and re-collecting the ledger.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client";
import { queryKeys } from "../../api/queries";
import type { Diagnostics, FlameGraph, OtlpTrace, RoundLedger } from "../../api/types";

// Diagnostics of a finished experiment only change when the ledger is collected again, and
// they take the backend a few seconds (bootstrap intervals): keep them.
const FINISHED_STALE_MS = 10 * 60 * 1000;

export function useDiagnostics(id: string, enabled = true) {
  return useQuery({
    queryKey: queryKeys.diagnostics(id),
    enabled,
    staleTime: FINISHED_STALE_MS,
    // openapi-fetch widens the ledger's `window` tuple to string[]: the schema's type is exact.
    queryFn: async ({ signal }) =>
      (await unwrap(
        api.GET("/api/v1/experiments/{experiment_id}/diagnostics", {
          params: { path: { experiment_id: id } },
          signal,
        }),
      )) as unknown as Diagnostics,
  });
}

/** The configuration's flame graph tree (all rounds merged). */
export function useStacks(id: string, configuration: string | null) {
  return useQuery({
    queryKey: queryKeys.stacks(id, configuration ?? ""),
    enabled: configuration != null,
    staleTime: FINISHED_STALE_MS,
    // The endpoint also answers text/plain (folded), so the generated type is loose.
    queryFn: async ({ signal }) =>
      (await unwrap(
        api.GET("/api/v1/experiments/{experiment_id}/stacks/{configuration}", {
          params: {
            path: { experiment_id: id, configuration: configuration ?? "" },
            query: { format: "tree" },
          },
          signal,
        }),
      )) as FlameGraph,
  });
}

/** The URL of a configuration's folded stacks (flamegraph.pl, speedscope). */
export function foldedStacksUrl(id: string, configuration: string): string {
  return `/api/v1/experiments/${encodeURIComponent(id)}/stacks/${encodeURIComponent(configuration)}?format=folded`;
}

export function useTrace(traceId: string | null) {
  return useQuery({
    queryKey: queryKeys.trace(traceId ?? ""),
    enabled: traceId != null,
    staleTime: FINISHED_STALE_MS,
    queryFn: async ({ signal }) =>
      (await unwrap(
        api.GET("/api/v1/traces/{trace_id}", {
          params: { path: { trace_id: traceId ?? "" } },
          signal,
        }),
      )) as OtlpTrace,
  });
}

export const LOG_LIMIT = 10;

/** The most recent log records of each round (of one configuration, or all), newest first. */
export function useLogs(id: string, configuration: string | null) {
  return useQuery({
    queryKey: queryKeys.logs(id, configuration),
    staleTime: FINISHED_STALE_MS,
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/v1/experiments/{experiment_id}/logs", {
          params: {
            path: { experiment_id: id },
            query: { limit: LOG_LIMIT, ...(configuration ? { configuration } : {}) },
          },
          signal,
        }),
      ),
  });
}

/** Reads the ledger again; the new ledger replaces the old one, then the rest is refreshed. */
export function useRecollectLedger(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () =>
      (await unwrap(
        api.POST("/api/v1/experiments/{experiment_id}/ledger", {
          params: { path: { experiment_id: id } },
        }),
      )) as unknown as RoundLedger[],
    onSuccess: (ledger) => {
      queryClient.setQueryData<Diagnostics>(queryKeys.diagnostics(id), (current) =>
        current ? { ...current, ledger } : current,
      );
      // Dropped spans and the recommendation read the ledger too, and the cost its volumes.
      queryClient.invalidateQueries({ queryKey: queryKeys.diagnostics(id) });
      queryClient.invalidateQueries({ queryKey: queryKeys.costs(id) });
    },
  });
}
