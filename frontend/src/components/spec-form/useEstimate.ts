// How long a form's request would take, as the backend estimates it (POST …/estimate, from the
// spec's own estimated_seconds in backend/tracetax/spec/estimate.py): the forms never compute
// it themselves. Asked once the form has been still for a moment; a request the API cannot
// parse yet (a blank or out-of-range field: its 422) has no estimate.

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client";
import { queryKeys } from "../../api/queries";
import type {
  AnyCheckRequest,
  CalibrationRequest,
  CheckBody,
  ExperimentSpec,
  PipelineSpec,
  PipelineSpecRequest,
  SpecEstimate,
} from "../../api/types";
import { useSettled } from "../../lib/useSettled";

/** What a form would send, and to which resource. */
export type EstimateRequest =
  | { of: "experiment"; body: ExperimentSpec | PipelineSpecRequest }
  | { of: "check"; body: CheckBody }
  | { of: "calibration"; body: CalibrationRequest };

/** How long the form must be still before its estimate is asked for. */
export const ESTIMATE_DELAY_MS = 250;

function fetchEstimate(request: EstimateRequest, signal: AbortSignal): Promise<SpecEstimate> {
  // A body may leave out what the API defaults (types.ts): handed over as the generated type.
  if (request.of === "check")
    return unwrap(
      api.POST("/api/v1/checks/estimate", { body: request.body as AnyCheckRequest, signal }),
    );
  if (request.of === "calibration")
    return unwrap(api.POST("/api/v1/calibrations/estimate", { body: request.body, signal }));
  return unwrap(
    api.POST("/api/v1/experiments/estimate", {
      body: request.body as ExperimentSpec | PipelineSpec,
      signal,
    }),
  );
}

/** The backend's estimate of `request`; null until it answers, or while it cannot parse it. */
export function useEstimate(request: EstimateRequest): SpecEstimate | null {
  const settled = useSettled(request, ESTIMATE_DELAY_MS);
  const query = useQuery({
    queryKey: queryKeys.estimate(settled.of, settled.body),
    queryFn: ({ signal }) => fetchEstimate(settled, signal),
    // While the next answer comes, the last one stays (no flicker as the user types).
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
  return query.isError ? null : (query.data ?? null);
}
