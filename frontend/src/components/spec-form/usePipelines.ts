// The shipped pipeline variants a pipeline experiment picks from, and queueing one. Errors go
// through `unwrap`, the API's `detail` as their message (a 422's items beside their fields).

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client";
import { queryKeys } from "../../api/queries";
import type { PipelineSpec, PipelineSpecRequest } from "../../api/types";

const CATALOG_STALE_MS = 5 * 60 * 1000;

/** Every shipped variant (an overlay over the lab base), passthrough first: the baseline. */
export function usePipelines() {
  return useQuery({
    queryKey: queryKeys.pipelines,
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/pipelines", { signal })),
    staleTime: CATALOG_STALE_MS,
  });
}

export function useCreatePipelineExperiment() {
  const queryClient = useQueryClient();
  return useMutation({
    // The spec may leave out what the API defaults (types.ts PipelineSpecRequest).
    mutationFn: (spec: PipelineSpecRequest) =>
      unwrap(api.POST("/api/v1/experiments", { body: spec as PipelineSpec })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.all }),
  });
}
