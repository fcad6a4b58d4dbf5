// CI checks: the list, one check (polled until its experiment finishes) and queueing one.

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client";
import { pollUntilFinal, pollWhileAnyRunning, queryKeys } from "../../api/queries";
import type {
  AnyCheckRequest,
  CheckBody,
  CheckCommands,
  CheckStatus,
  PipelineCheckBody,
  PipelineCheckRequest,
} from "../../api/types";
import { useSettled } from "../../lib/useSettled";

const POLL_MS = 3000;
// The backend judges every listed check from its experiment's diagnostics (about a second
// each), so the list asks for a page at a time and polls slowly.
export const CHECKS_PAGE = 10;
const LIST_POLL_MS = 10_000;

/** The `limit` most recent checks. */
export function useChecks(limit: number = CHECKS_PAGE) {
  return useQuery({
    queryKey: queryKeys.checkList(limit),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/v1/checks", { params: { query: { limit } }, signal })),
    placeholderData: keepPreviousData,
    refetchInterval: pollWhileAnyRunning(LIST_POLL_MS),
  });
}

export function useCheck(id: string) {
  return useQuery({
    queryKey: queryKeys.check(id),
    // The endpoint also answers JUnit XML (?format=junit), so the generated type is loose.
    queryFn: async ({ signal }) =>
      (await unwrap(
        api.GET("/api/v1/checks/{check_id}", { params: { path: { check_id: id } }, signal }),
      )) as CheckStatus,
    refetchInterval: pollUntilFinal(POLL_MS),
  });
}

export function useCreateCheck() {
  const queryClient = useQueryClient();
  return useMutation({
    // A pipeline check's body may leave out what the API defaults (types.ts CheckBody).
    mutationFn: (request: CheckBody) =>
      unwrap(api.POST("/api/v1/checks", { body: request as AnyCheckRequest })),
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: queryKeys.checks });
      queryClient.invalidateQueries({ queryKey: queryKeys.all });
    },
  });
}

/** A stored check as CI runs it again: its request, `tracetax check` and curl, built by the
 * backend (app/check_commands.py) to call `base`. */
export function useCheckCommands(id: string, base: string) {
  return useQuery({
    queryKey: queryKeys.checkCommands(id, base),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/v1/checks/{check_id}/commands", {
          params: { path: { check_id: id }, query: { api: base } },
          signal,
        }),
      ),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** How long the pipeline check form must be still before its commands are asked for. */
const COMMANDS_DELAY_MS = 250;

/** The commands of the pipeline check a form would send; null until the backend answers, or
 * while it cannot parse the request (its 422). */
export function usePipelineCheckCommands(
  request: PipelineCheckBody,
  base: string,
): CheckCommands | null {
  const settled = useSettled(request, COMMANDS_DELAY_MS);
  const query = useQuery({
    queryKey: queryKeys.requestCommands(base, settled),
    queryFn: ({ signal }) =>
      unwrap(
        api.POST("/api/v1/checks/commands", {
          // A body may leave out what the API defaults (types.ts): handed over as the generated type.
          body: settled as PipelineCheckRequest,
          params: { query: { api: base } },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
  return query.isError ? null : (query.data ?? null);
}
