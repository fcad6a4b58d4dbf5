// What a finished service experiment's configurations cost at the user's traffic: GET …/cost
// with the inputs as query parameters, keyed by the experiment and those inputs.

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client";
import { queryKeys } from "../../api/queries";
import { type CostParams, costQuery } from "../../components/results/costInputs";

// A finished experiment's cost only changes with its inputs, or when the ledger is read again
// (useRecollectLedger refreshes it); the backend recomputes the diagnostics for it.
const FINISHED_STALE_MS = 10 * 60 * 1000;

/** The cost for `params` (absent: the API's defaults); the last one stays shown while the next loads. */
export function useCost(id: string, params: CostParams) {
  return useQuery({
    queryKey: queryKeys.cost(id, params as Record<string, string>),
    staleTime: FINISHED_STALE_MS,
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/v1/experiments/{experiment_id}/cost", {
          params: { path: { experiment_id: id }, query: costQuery(params) },
          signal,
        }),
      ),
  });
}
