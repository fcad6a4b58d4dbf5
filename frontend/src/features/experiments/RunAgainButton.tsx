import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, errorMessage, unwrap } from "../../api/client";
import { queryKeys } from "../../api/queries";
import type { ExperimentDetail, ExperimentSpec, PipelineSpec } from "../../api/types";
import { isFinal } from "../../api/types";

/**
 * Queues a finished experiment's spec again. The spec is sent back as the backend answered it,
 * its secrets (credential-carrying header and env values) as "***", naming the experiment in
 * `from_experiment`: the backend fills the stored values in, so they never reach the page.
 */
export function RunAgainButton({
  experiment,
  onQueued,
}: {
  experiment: Pick<ExperimentDetail, "id" | "status" | "spec">;
  onQueued: (id: string) => void;
}) {
  const queryClient = useQueryClient();
  const again = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/v1/experiments", {
          body: experiment.spec as unknown as ExperimentSpec | PipelineSpec,
          params: { query: { from_experiment: experiment.id } },
        }),
      ),
    onSuccess: (created) => {
      queryClient.invalidateQueries({ queryKey: queryKeys.all });
      onQueued(created.id);
    },
  });
  if (!isFinal(experiment.status)) return null;
  return (
    <span className="run-again-action">
      <button
        type="button"
        onClick={() => again.mutate()}
        disabled={again.isPending || again.isSuccess}
      >
        {again.isPending ? "Queueing…" : "Run again"}
      </button>
      {again.isError && (
        <span role="alert" className="error small">
          Could not run it again: {errorMessage(again.error)}
        </span>
      )}
    </span>
  );
}
