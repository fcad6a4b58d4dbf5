// Queries of a finished Collector pipeline experiment: its results with every round's samples,
// its diagnostics (changes against the baseline pipeline, noise floor, every round's ledger),
// and reading Tempo's side of the ledger again. Same keys as a service's: one experiment id
// is only ever one kind.

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client";
import { queryKeys } from "../../api/queries";
import type { PipelineDiagnostics, PipelineResults } from "../../api/types";

// Diagnostics of a finished experiment only change when Tempo is read again.
const FINISHED_STALE_MS = 10 * 60 * 1000;

/** Per-variant aggregates and every round with its 250 ms samples of the lab Collector. */
export function usePipelineResults(id: string) {
  return useQuery({
    queryKey: queryKeys.results(id),
    queryFn: async ({ signal }) =>
      (await unwrap(
        api.GET("/api/v1/experiments/{experiment_id}/results", {
          params: { path: { experiment_id: id }, query: { raw: true } },
          signal,
        }),
      )) as unknown as PipelineResults,
  });
}

async function fetchPipelineDiagnostics(
  id: string,
  target: number | null,
  signal: AbortSignal,
): Promise<PipelineDiagnostics> {
  // The API answers a union (service or pipeline); this page only asks for a pipeline's.
  return (await unwrap(
    api.GET("/api/v1/experiments/{experiment_id}/diagnostics", {
      params: {
        path: { experiment_id: id },
        query: target == null ? {} : { target_spans_per_s: target },
      },
      signal,
    }),
  )) as PipelineDiagnostics;
}

/** The diagnostics, their recommendation sized for the rate the experiment sent. */
export function usePipelineDiagnostics(id: string) {
  return useQuery({
    queryKey: queryKeys.diagnostics(id),
    staleTime: FINISHED_STALE_MS,
    queryFn: ({ signal }) => fetchPipelineDiagnostics(id, null, signal),
  });
}

/**
 * The diagnostics again with the recommendation sized for `target` spans/s (null: not asked,
 * nothing fetched). The last sizing stays on screen while the next one loads.
 */
export function usePipelineSizing(id: string, target: number | null) {
  return useQuery({
    queryKey: queryKeys.pipelineSizing(id, target ?? 0),
    enabled: target != null,
    staleTime: FINISHED_STALE_MS,
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) => fetchPipelineDiagnostics(id, target, signal),
  });
}

/**
 * Reads what each round left in Tempo again (the API answers no ledger for a pipeline), then
 * refreshes the diagnostics that carry it.
 */
export function useRecollectStored(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/v1/experiments/{experiment_id}/ledger", {
          params: { path: { experiment_id: id } },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.diagnostics(id) }),
  });
}
