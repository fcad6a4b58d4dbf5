import type { ReactNode } from "react";
import { usePresets, useServices } from "../api/queries";
import type { Preset, ServiceInfo } from "../api/types";
import { ErrorState, Loading } from "./States";

/**
 * Waits for the demo services and presets a form is built from, with their loading, error
 * and empty states; renders `children(services, presets)` once both are there.
 */
export function CatalogGate({
  purpose,
  children,
}: {
  /** What the form does with a service, for the empty state: "measure", "check". */
  purpose: string;
  children: (services: ServiceInfo[], presets: Preset[]) => ReactNode;
}) {
  const services = useServices();
  const presets = usePresets();
  return (
    <>
      {(services.isPending || presets.isPending) && (
        <Loading>Loading services and presets…</Loading>
      )}
      {services.isError && (
        <ErrorState
          title="Could not load the services"
          error={services.error}
          onRetry={() => services.refetch()}
        />
      )}
      {presets.isError && (
        <ErrorState
          title="Could not load the presets"
          error={presets.error}
          onRetry={() => presets.refetch()}
        />
      )}
      {services.data && presets.data && services.data.length === 0 && (
        <div className="state state-empty">No demo service is available to {purpose}.</div>
      )}
      {services.data &&
        presets.data &&
        services.data.length > 0 &&
        children(services.data, presets.data)}
    </>
  );
}
