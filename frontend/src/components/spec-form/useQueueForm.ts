import type { UseMutationResult } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useNavigate } from "react-router";
import { useErrorSummary } from "./ErrorSummary";

/**
 * A form that queues a check or a calibration: its state as plain data (a setter per key), the
 * API's errors beside the fields and in the summary, and a submit that opens what was queued.
 */
export function useQueueForm<S extends object, R, D extends { id: string }>({
  create,
  initial,
  toRequest,
  list,
}: {
  create: UseMutationResult<D, Error, R>;
  initial: () => S;
  toRequest: (form: S) => R;
  /** Where the queued thing's page is: "/checks" opens "/checks/{id}". */
  list: string;
}) {
  const navigate = useNavigate();
  const [form, setForm] = useState<S>(initial);
  const { errors, summary } = useErrorSummary(create);
  const set = <K extends keyof S>(key: K, value: S[K]) =>
    setForm((current) => ({ ...current, [key]: value }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(toRequest(form), {
      onSuccess: (created) => navigate(`${list}/${created.id}`),
    });
  };
  return { form, set, errors, summary, submit };
}
