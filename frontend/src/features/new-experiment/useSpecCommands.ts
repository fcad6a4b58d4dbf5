// The commands that start the spec the new experiment form would send, once saved as a file:
// `tracetax run` and curl, built and quoted by the backend (app/spec_commands.py,
// POST /api/v1/experiments/commands), so the UI keeps no copy of the CLI or of shell quoting.

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client";
import { queryKeys } from "../../api/queries";
import type { ExperimentSpec, SpecCommands } from "../../api/types";
import { useSettled } from "../../lib/useSettled";

/** How long the form must be still before its commands are asked for. */
const COMMANDS_DELAY_MS = 250;

/** The commands of `spec` calling `base`; null until the backend answers, or while it cannot
 * parse the spec (its 422, which the form shows when it is sent). */
export function useSpecCommands(spec: ExperimentSpec, base: string): SpecCommands | null {
  const settled = useSettled(spec, COMMANDS_DELAY_MS);
  const query = useQuery({
    queryKey: queryKeys.specCommands(base, settled),
    queryFn: ({ signal }) =>
      unwrap(
        api.POST("/api/v1/experiments/commands", {
          body: settled,
          params: { query: { api: base } },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
  return query.isError ? null : (query.data ?? null);
}
