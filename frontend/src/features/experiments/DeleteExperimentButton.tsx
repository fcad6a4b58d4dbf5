import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, errorMessage, unwrap } from "../../api/client";
import { queryKeys } from "../../api/queries";
import { isFinal } from "../../api/types";

/**
 * Deletes a finished experiment (rows, samples and work directory) after the user confirms;
 * the backend refuses a queued or running one (409), so the button is only offered once it has
 * ended. Every experiment query is refreshed afterwards: lists drop it, its pages go.
 */
export function DeleteExperimentButton({
  experiment,
  onDeleted,
  compact = false,
}: {
  experiment: { id: string; name?: string | null; status: string };
  onDeleted?: () => void;
  compact?: boolean;
}) {
  const queryClient = useQueryClient();
  const label = experiment.name || `Experiment ${experiment.id.slice(0, 8)}`;
  const remove = useMutation({
    mutationFn: () =>
      unwrap(
        api.DELETE("/api/v1/experiments/{experiment_id}", {
          params: { path: { experiment_id: experiment.id } },
        }),
      ),
    onSuccess: () => {
      onDeleted?.();
      // Its own queries would only answer 404 now: drop them rather than refetch them.
      for (const key of [queryKeys.detail, queryKeys.results, queryKeys.diagnostics]) {
        queryClient.removeQueries({ queryKey: key(experiment.id) });
      }
    },
    // A check or calibration goes with its experiment.
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.all }),
        queryClient.invalidateQueries({ queryKey: queryKeys.checks }),
        queryClient.invalidateQueries({ queryKey: queryKeys.calibrations }),
      ]),
  });
  if (!isFinal(experiment.status)) return null;

  const confirmAndDelete = () => {
    const question = `Delete ${label}? Its results, samples and files are removed for good; a check or calibration that ran it goes too.`;
    if (window.confirm(question)) remove.mutate();
  };
  return (
    <span className="delete-action">
      <button
        type="button"
        className={compact ? "button-danger small" : "button-danger"}
        onClick={confirmAndDelete}
        disabled={remove.isPending || remove.isSuccess}
        aria-label={compact ? `Delete ${label}` : undefined}
      >
        {remove.isPending ? "Deleting…" : "Delete"}
      </button>
      {remove.isError && (
        <span role="alert" className="error small">
          Could not delete: {errorMessage(remove.error)}
        </span>
      )}
    </span>
  );
}
