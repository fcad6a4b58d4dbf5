// Where the added cost went: GET …/stacks/{configuration}/diff, keyed under the configuration's
// stacks so whatever refreshes an experiment refreshes its diffs too.

import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client";
import { queryKeys } from "../../api/queries";
import type { FlameDiff } from "../../api/types";

// A finished experiment's stacks never change.
const FINISHED_STALE_MS = 10 * 60 * 1000;

export interface DiffTarget {
  experimentId: string;
  configuration: string;
  /** The configuration compared with; null: the experiment's baseline (or, with
   * againstExperiment, the same configuration there). */
  against: string | null;
  /** Compare with a configuration of this experiment (an earlier check's), or null. */
  againstExperiment: string | null;
}

function diffQuery(target: DiffTarget) {
  return {
    ...(target.against ? { against: target.against } : {}),
    ...(target.againstExperiment ? { against_experiment: target.againstExperiment } : {}),
  };
}

/** The diff tree of `configuration` against the other side (null target: nothing to fetch). */
export function useStackDiff(target: DiffTarget | null) {
  return useQuery({
    queryKey: [
      ...queryKeys.stacks(target?.experimentId ?? "", target?.configuration ?? ""),
      "diff",
      target?.against ?? null,
      target?.againstExperiment ?? null,
    ],
    enabled: target != null,
    staleTime: FINISHED_STALE_MS,
    // The endpoint also answers text/plain (folded), so the generated type is loose.
    queryFn: async ({ signal }) =>
      (await unwrap(
        api.GET("/api/v1/experiments/{experiment_id}/stacks/{configuration}/diff", {
          params: {
            path: {
              experiment_id: target?.experimentId ?? "",
              configuration: target?.configuration ?? "",
            },
            query: { ...diffQuery(target as DiffTarget), format: "tree" },
          },
          signal,
        }),
      )) as FlameDiff,
  });
}

/** The URL of the folded diff (difffolded.pl's `stack baseline candidate` lines). */
export function foldedDiffUrl(target: DiffTarget): string {
  const query = new URLSearchParams({ ...diffQuery(target), format: "folded" });
  return `/api/v1/experiments/${encodeURIComponent(target.experimentId)}/stacks/${encodeURIComponent(target.configuration)}/diff?${query}`;
}
