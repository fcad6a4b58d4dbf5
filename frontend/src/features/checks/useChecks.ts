// CI checks: the list, one check (polled until its experiment finishes) and queueing one.

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client";
import { pollUntilFinal, pollWhileAnyRunning, queryKeys } from "../../api/queries";
import type { AnyCheckRequest, CheckBody, CheckStatus } from "../../api/types";

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
