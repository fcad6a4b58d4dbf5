// Calibrations: the list, one calibration (polled until its A/A experiment finishes) and
// queueing one. Errors go through `unwrap`, the API's `detail` as their message.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client";
import { pollUntilFinal, pollWhileAnyRunning, queryKeys } from "../../api/queries";
import type { CalibrationRequest } from "../../api/types";

const POLL_MS = 3000;
const LIST_POLL_MS = 5000;

export function useCalibrations() {
  return useQuery({
    queryKey: queryKeys.calibrationList,
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/calibrations", { signal })),
    refetchInterval: pollWhileAnyRunning(LIST_POLL_MS),
  });
}

export function useCalibration(id: string) {
  return useQuery({
    queryKey: queryKeys.calibration(id),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/v1/calibrations/{calibration_id}", {
          params: { path: { calibration_id: id } },
          signal,
        }),
      ),
    refetchInterval: pollUntilFinal(POLL_MS),
  });
}

export function useCreateCalibration() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: CalibrationRequest) =>
      unwrap(api.POST("/api/v1/calibrations", { body: request })),
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: queryKeys.calibrations });
      queryClient.invalidateQueries({ queryKey: queryKeys.all });
    },
  });
}
