import { lazy, Suspense, useEffect, useMemo, useState } from "react";
import { useSearchParams } from "react-router";
import type { CostInputs, CostReport } from "../../api/types";
import { formErrors } from "../../api/validation";
import { inOrder } from "../../components/results/costFigures";
import {
  COST_INPUTS,
  type CostInputKey,
  type CostParamKey,
  costParamsFrom,
  withCostParam,
  withoutCostParams,
} from "../../components/results/costInputs";
import { Empty, ErrorState, Loading } from "../../components/States";
import { formatNumber } from "../../lib/format";
import { CostInputsForm, type KnownInputs } from "./CostInputsForm";
import { CostTable } from "./CostTable";
import { costBars } from "./costChart";
import { useCost } from "./useCost";
import "../../components/results/recommendation.css";
import "./serviceResults.css";

// ECharts is loaded with the first results page that needs it, not with the app.
const CostChart = lazy(() =>
  import("./CostChart").then((module) => ({ default: module.CostChart })),
);

// Editing an input replaces the URL (no history entry per value) and keeps the scroll.
const NAVIGATE = { replace: true, preventScrollReset: true } as const;

/**
 * What each configuration of a finished service experiment costs at the reader's traffic and
 * prices (GET …/cost): the inputs, editable and kept in the URL; the recommended configuration's
 * cost; a stacked bar of $/month by component; and every figure with its 95% interval.
 */
export function CostPanel({ experimentId, order }: { experimentId: string; order: string[] }) {
  const [search, setSearch] = useSearchParams();
  const params = useMemo(() => costParamsFrom(search), [search]);
  const cost = useCost(experimentId, params);
  const known = useKnownInputs(cost.data, cost.isPlaceholderData, params);
  const recalculating = cost.isFetching && cost.isPlaceholderData;

  const setParams = (values: Partial<Record<CostParamKey, string | null>>) =>
    setSearch(
      (current) =>
        Object.entries(values).reduce(
          (next, [key, value]) => withCostParam(next, key as CostParamKey, value ?? null),
          current,
        ),
      NAVIGATE,
    );
  const reset = () => setSearch((current) => withoutCostParams(current), NAVIGATE);

  return (
    <div className="cost" data-testid="cost">
      <CostInputsForm
        params={params}
        known={known}
        errors={formErrors(cost.error)}
        recalculating={recalculating}
        onParams={setParams}
        onReset={reset}
      />
      {cost.isPending && <Loading>Computing the cost…</Loading>}
      {cost.isError && (
        <ErrorState
          title="Could not compute the cost"
          error={cost.error}
          onRetry={() => cost.refetch()}
        />
      )}
      {cost.data && !cost.isError && (
        <CostFigures report={cost.data} order={order} stale={recalculating} />
      )}
    </div>
  );
}

/**
 * The defaults the API filled in (for inputs not in the URL) and where they come from, kept from
 * every answer: they still show in the form while an invalid input has no answer.
 */
function useKnownInputs(
  report: CostReport | undefined,
  placeholder: boolean,
  params: Partial<Record<CostInputKey, string>>,
): KnownInputs {
  const [known, setKnown] = useState<KnownInputs>({ defaults: {}, sources: {} });
  useEffect(() => {
    if (!report || placeholder) return;
    setKnown((current) => {
      const defaults: Partial<CostInputs> = { ...current.defaults };
      for (const { key } of COST_INPUTS) {
        if (params[key] === undefined) defaults[key] = report.inputs[key];
      }
      const same =
        COST_INPUTS.every(({ key }) => defaults[key] === current.defaults[key]) &&
        Object.keys(report.sources).every((key) => report.sources[key] === current.sources[key]);
      return same ? current : { defaults, sources: { ...current.sources, ...report.sources } };
    });
  }, [report, placeholder, params]);
  return known;
}

/** The recommended configuration's cost, the Collector's figure, the chart and the table. */
function CostFigures({
  report,
  order,
  stale,
}: {
  report: CostReport;
  order: string[];
  /** An answer for the previous inputs, shown while the new one loads. */
  stale: boolean;
}) {
  const configurations = useMemo(() => inOrder(report, order), [report, order]);
  const bars = useMemo(() => costBars(configurations), [configurations]);
  const { collector, recommended } = report;
  const anyMoney = bars.some((bar) => bar.usd.some((usd) => usd != null));
  return (
    <div className={`cost-figures${stale ? " is-stale" : ""}`} aria-busy={stale || undefined}>
      {recommended ? (
        <p className="recommendation-summary" data-testid="cost-recommended">
          {recommended.summary}
        </p>
      ) : (
        <p className="muted" data-testid="cost-recommended">
          The diagnostics recommend no configuration of this experiment, so there is no recommended
          cost; every configuration's is below.
        </p>
      )}
      <p className="small" data-testid="cost-collector">
        <strong>Collector:</strong> {formatNumber(collector.cores_per_10k_spans_s, 4)} cores per 10k
        spans/s{" "}
        <span className={`tag ${collector.measured ? "tag-ok" : "tag-unknown"}`}>
          {collector.measured ? "measured" : "documented"}
        </span>{" "}
        <span className="muted">{collector.source}</span>
      </p>
      {report.note && (
        <div className="banner banner-warning" data-testid="cost-note">
          <p>{report.note}</p>
        </div>
      )}
      {anyMoney ? (
        <Suspense fallback={<Loading>Loading the chart…</Loading>}>
          <CostChart bars={bars} />
        </Suspense>
      ) : (
        <Empty>
          <p>No configuration has a known $/month yet, so there is nothing to chart.</p>
        </Empty>
      )}
      <CostTable configurations={configurations} order={order} />
      <p className="muted small">
        <strong>Telemetry volume:</strong> {report.volume_source}
      </p>
    </div>
  );
}
