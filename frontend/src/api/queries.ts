// Queries shared by several features. Keys start with the resource so one invalidation of
// ["experiments"] refreshes lists, details and results together.

import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "./client";
import { type ExperimentResults, isFinal } from "./types";

export const queryKeys = {
  all: ["experiments"] as const,
  list: (service: string | null) => ["experiments", "list", service] as const,
  detail: (id: string) => ["experiments", "detail", id] as const,
  results: (id: string) => ["experiments", "results", id] as const,
  diagnostics: (id: string) => ["experiments", "diagnostics", id] as const,
  /** A pipeline's diagnostics sized for a span rate; under `diagnostics(id)`, so refreshed with it. */
  pipelineSizing: (id: string, targetSpansPerS: number) =>
    ["experiments", "diagnostics", id, { target_spans_per_s: targetSpansPerS }] as const,
  /** Every cost of an experiment, whatever its inputs: what a new ledger reading refreshes. */
  costs: (id: string) => ["experiments", "cost", id] as const,
  /** An experiment's cost for the query string's inputs (strings, as the URL has them). */
  cost: (id: string, query: Record<string, string>) => ["experiments", "cost", id, query] as const,
  stacks: (id: string, configuration: string) =>
    ["experiments", "stacks", id, configuration] as const,
  logs: (id: string, configuration: string | null) =>
    ["experiments", "logs", id, configuration] as const,
  trace: (traceId: string) => ["traces", traceId] as const,
  checks: ["checks"] as const,
  checkList: (limit: number) => ["checks", "list", limit] as const,
  check: (id: string) => ["checks", "detail", id] as const,
  /** A stored check's commands (they never change: its request is stored). */
  checkCommands: (id: string, base: string) => ["checks", "commands", id, base] as const,
  /** The commands of a pipeline check request a form would send. */
  requestCommands: (base: string, body: unknown) => ["check-commands", base, body] as const,
  /** One metric's history of a configuration; under ["checks"], so a new check refreshes it. */
  history: (filters: Record<string, string | null | undefined>) =>
    ["checks", "history", filters] as const,
  serviceHistory: (service: string) => ["checks", "history", "service", service] as const,
  /** The commands that start the spec the new experiment form would send. */
  specCommands: (base: string, body: unknown) => ["spec-commands", base, body] as const,
  /** A form's estimate of the request it would send (`of`: what it queues). */
  estimate: (of: string, body: unknown) => ["estimate", of, body] as const,
  calibrations: ["calibrations"] as const,
  calibrationList: ["calibrations", "list"] as const,
  calibration: (id: string) => ["calibrations", "detail", id] as const,
  tunings: ["tunings"] as const,
  tuningList: ["tunings", "list"] as const,
  tuning: (id: string) => ["tunings", "detail", id] as const,
  meta: ["meta"] as const,
  services: ["services"] as const,
  presets: ["presets"] as const,
  pipelines: ["pipelines"] as const,
  health: ["health"] as const,
};

const CATALOG_STALE_MS = 5 * 60 * 1000;

type Polled<T> = { state: { data?: T } };

/** A `refetchInterval`: every `ms` while the loaded experiment, check, calibration or tuning is queued or running. */
export function pollUntilFinal(ms: number) {
  return (query: Polled<{ status: string }>) =>
    query.state.data && !isFinal(query.state.data.status) ? ms : false;
}

/** A `refetchInterval`: every `ms` while anything in the loaded list is queued or running. */
export function pollWhileAnyRunning(ms: number) {
  return (query: Polled<{ status: string }[]>) =>
    query.state.data?.some((item) => !isFinal(item.status)) ? ms : false;
}

export function useExperiments(service: string | null) {
  return useQuery({
    queryKey: queryKeys.list(service),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/v1/experiments", {
          params: { query: service ? { service } : {} },
          signal,
        }),
      ),
    refetchInterval: pollWhileAnyRunning(3000),
  });
}

export function useExperiment(id: string, enabled = true) {
  return useQuery({
    queryKey: queryKeys.detail(id),
    enabled: enabled && id !== "",
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/v1/experiments/{experiment_id}", {
          params: { path: { experiment_id: id } },
          signal,
        }),
      ),
    // A fallback for the event stream: keeps the status fresh while the run goes on.
    refetchInterval: pollUntilFinal(5000),
  });
}

/** Aggregates and every round with its 250 ms samples (raw=true). */
export function useResults(id: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.results(id),
    enabled,
    queryFn: async ({ signal }) =>
      (await unwrap(
        api.GET("/api/v1/experiments/{experiment_id}/results", {
          params: { path: { experiment_id: id }, query: { raw: true } },
          signal,
        }),
      )) as unknown as ExperimentResults,
  });
}

export function useServices() {
  return useQuery({
    queryKey: queryKeys.services,
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/services", { signal })),
    staleTime: CATALOG_STALE_MS,
  });
}

/** The version and, when configured, the Grafana to link to (Explore). */
export function useMeta() {
  return useQuery({
    queryKey: queryKeys.meta,
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/meta", { signal })),
    staleTime: CATALOG_STALE_MS,
  });
}

export function usePresets() {
  return useQuery({
    queryKey: queryKeys.presets,
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/presets", { signal })),
    staleTime: CATALOG_STALE_MS,
  });
}

/** A service's configurations: each one's latest overhead per metric and its recent trend. */
export function useServiceHistory(service: string) {
  return useQuery({
    queryKey: queryKeys.serviceHistory(service),
    enabled: service !== "",
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/v1/history/services/{service}", {
          params: { path: { service } },
          signal,
        }),
      ),
  });
}
