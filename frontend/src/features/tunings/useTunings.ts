// Tuning runs: the list, one run (polled while it runs), starting one and cancelling one.
// Errors go through `unwrap`, the API's `detail` as their message.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client";
import { pollUntilFinal, pollWhileAnyRunning, queryKeys } from "../../api/queries";
import type { TuningSpec } from "../../api/types";
import type { TuningBody } from "./tuningForm";

const POLL_MS = 3000;
const LIST_POLL_MS = 5000;

export function useTunings() {
  return useQuery({
    queryKey: queryKeys.tuningList,
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/tunings", { signal })),
    refetchInterval: pollWhileAnyRunning(LIST_POLL_MS),
  });
}

/** One run; polled every few seconds while it is queued or running (its progress line moves). */
export function useTuning(id: string) {
  return useQuery({
    queryKey: queryKeys.tuning(id),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/v1/tunings/{tuning_id}", {
          params: { path: { tuning_id: id } },
          signal,
        }),
      ),
    refetchInterval: pollUntilFinal(POLL_MS),
  });
}

export function useCreateTuning() {
  const queryClient = useQueryClient();
  return useMutation({
    // The form leaves out what the API defaults (tuningForm.ts TuningBody).
    mutationFn: (body: TuningBody) =>
      unwrap(api.POST("/api/v1/tunings", { body: body as unknown as TuningSpec })),
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: queryKeys.tunings });
      queryClient.invalidateQueries({ queryKey: queryKeys.all });
    },
  });
}

/** Stops the run after cancelling its running experiment; the experiments it finished stay. */
export function useCancelTuning(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/v1/tunings/{tuning_id}/cancel", { params: { path: { tuning_id: id } } }),
      ),
    onSettled: () => {
      queryClient.invalidateQueries({ queryKey: queryKeys.tunings });
      queryClient.invalidateQueries({ queryKey: queryKeys.all });
    },
  });
}
