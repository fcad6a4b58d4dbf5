/** The danger button that cancels a running thing, with its pending and done states. */
export function CancelButton({
  mutation,
  label,
  doneLabel,
}: {
  mutation: { mutate: () => void; isPending: boolean; isSuccess: boolean };
  label: string;
  doneLabel: string;
}) {
  return (
    <button
      type="button"
      className="button-danger"
      onClick={() => mutation.mutate()}
      disabled={mutation.isPending || mutation.isSuccess}
    >
      {mutation.isPending ? "Cancelling…" : mutation.isSuccess ? doneLabel : label}
    </button>
  );
}
