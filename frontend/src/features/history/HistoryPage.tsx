import { type FormEvent, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { useServiceHistory, useServices } from "../../api/queries";
import {
  HISTORY_METRICS,
  type HistoryFilters,
  type HistoryMetric,
  isNoHistory,
} from "../../components/history/historyMetrics";
import { Empty, ErrorState, Loading, QueryStates } from "../../components/States";
import { useDocumentTitle } from "../../lib/useDocumentTitle";
import { HistoryChart } from "./HistoryChart";
import { useHistorySeries } from "./useHistory";
import "./history.css";

const FILTERS = ["service", "configuration", "branch", "machine"] as const;

/** The page's filters from its URL: blank ones left out. */
function filtersOf(params: URLSearchParams): HistoryFilters {
  return {
    service: params.get("service") ?? "",
    configuration: params.get("configuration") ?? "",
    branch: params.get("branch") || null,
    machine: params.get("machine") || null,
  };
}

/** The command that starts a history of this configuration. */
export function startCommand(filters: Partial<HistoryFilters>): string {
  const service = filters.service || "SERVICE";
  const candidate = filters.configuration || "CONFIGURATION";
  return `tracetax check --service ${service} --candidate ${candidate} --branch ${filters.branch || "main"} --commit "$(git rev-parse HEAD)" ...`;
}

/**
 * `/history?service=&configuration=&branch=&machine=`: every check of one configuration in
 * commit order, one chart per metric, change points and the budget marked.
 */
export function HistoryPage() {
  useDocumentTitle("History");
  const [params, setParams] = useSearchParams();
  const filters = filtersOf(params);
  const apply = (next: Partial<HistoryFilters>) => {
    const merged: Partial<HistoryFilters> = { ...filters, ...next };
    const query: Record<string, string> = {};
    for (const key of FILTERS) if (merged[key]) query[key] = merged[key] as string;
    setParams(query);
  };
  return (
    <>
      <div className="page-head">
        <div>
          <h1>History</h1>
          <p className="muted">
            Every check of a configuration, commit by commit: its paired overhead against the
            baseline measured in the same run, so runner noise largely cancels before the history
            sees it. A change point is a shift larger than the points' own intervals.
          </p>
        </div>
        {filters.service && (
          <Link to={`/services/${encodeURIComponent(filters.service)}`}>
            Service {filters.service}
          </Link>
        )}
      </div>
      {/* Keyed by the typed filters, so its inputs follow the URL (back, a link). */}
      <Filters key={`${filters.branch}|${filters.machine}`} filters={filters} onApply={apply} />
      <Charts filters={filters} onApply={apply} />
    </>
  );
}

function Filters({
  filters,
  onApply,
}: {
  filters: HistoryFilters;
  onApply: (next: Partial<HistoryFilters>) => void;
}) {
  const services = useServices();
  const summary = useServiceHistory(filters.service);
  const names = services.data?.map((service) => service.language) ?? [];
  if (filters.service && !names.includes(filters.service)) names.push(filters.service);
  const configurations = summary.data?.configurations.map((c) => c.configuration) ?? [];
  if (filters.configuration && !configurations.includes(filters.configuration))
    configurations.push(filters.configuration);
  // Typed text is applied on submit, not per key: each change asks the API for five series.
  const [branch, setBranch] = useState(filters.branch ?? "");
  const [machine, setMachine] = useState(filters.machine ?? "");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ branch: branch.trim() || null, machine: machine.trim() || null });
  };
  return (
    <form className="panel history-filters" aria-label="Filters" onSubmit={submit}>
      <div className="field-row">
        <div className="field">
          <label htmlFor="history-service">Service</label>
          <select
            id="history-service"
            value={filters.service}
            onChange={(event) => onApply({ service: event.target.value, configuration: "" })}
          >
            <option value="">Choose a service</option>
            {names.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="history-configuration">Configuration</label>
          <select
            id="history-configuration"
            value={filters.configuration}
            disabled={!filters.service}
            onChange={(event) => onApply({ configuration: event.target.value })}
          >
            <option value="">Choose a configuration</option>
            {configurations.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="history-branch">Branch</label>
          <input
            id="history-branch"
            value={branch}
            placeholder="every branch"
            onChange={(event) => setBranch(event.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="history-machine">Machine fingerprint</label>
          <input
            id="history-machine"
            className="mono"
            value={machine}
            placeholder="every machine"
            onChange={(event) => setMachine(event.target.value)}
          />
        </div>
        <div className="field">
          <button type="submit">Apply filters</button>
        </div>
      </div>
      {services.isError && (
        <ErrorState
          title="Could not load the services"
          error={services.error}
          onRetry={() => services.refetch()}
        />
      )}
      {summary.isError && !isNoHistory(summary.error) && (
        <ErrorState
          title={`Could not load the configurations of ${filters.service}`}
          error={summary.error}
          onRetry={() => summary.refetch()}
        />
      )}
    </form>
  );
}

/** The charts once a service and a configuration are chosen; else what to do. */
function Charts({
  filters,
  onApply,
}: {
  filters: HistoryFilters;
  onApply: (next: Partial<HistoryFilters>) => void;
}) {
  const summary = useServiceHistory(filters.service);
  const series = useHistorySeries(
    filters,
    HISTORY_METRICS.map((metric) => metric.name),
  );
  if (!filters.service) {
    return (
      <Empty>
        <p>Choose a service and one of its configurations to see its history.</p>
      </Empty>
    );
  }
  if (!filters.configuration) {
    if (summary.isPending)
      return <Loading>Loading the configurations of {filters.service}…</Loading>;
    if (isNoHistory(summary.error))
      return <NoHistory filters={filters} detail={summary.error.message} />;
    const first = summary.data?.configurations[0]?.configuration;
    if (summary.data && !first) return <NoHistory filters={filters} />;
    return (
      <Empty>
        <p>
          Choose one of {filters.service}'s configurations
          {first && (
            <>
              , e.g.{" "}
              <button
                type="button"
                className="button-small"
                onClick={() => onApply({ configuration: first })}
              >
                {first}
              </button>
            </>
          )}
          .
        </p>
      </Empty>
    );
  }
  // Nothing checked yet for these filters: one empty state, not one per metric.
  const [first] = series;
  if (series.every((query) => isNoHistory(query.error)) && isNoHistory(first.error))
    return <NoHistory filters={filters} detail={first.error.message} />;
  return (
    <>
      {HISTORY_METRICS.map((metric, index) => (
        <MetricSection key={metric.name} metric={metric} query={series[index]} filters={filters} />
      ))}
    </>
  );
}

/** What to do when there is no history yet; `detail`: the API's sentence saying what is missing. */
function NoHistory({ filters, detail }: { filters: HistoryFilters; detail?: string }) {
  const where = [
    filters.configuration && `${filters.configuration} of`,
    filters.service,
    filters.branch && `on ${filters.branch}`,
    filters.machine && `on machine ${filters.machine}`,
  ]
    .filter(Boolean)
    .join(" ");
  return (
    <Empty>
      {detail && <p className="muted small">{detail}</p>}
      <p>
        No check of {where} has been recorded yet. Run <code>{startCommand(filters)}</code> to start
        a history: each check with a commit and a branch adds a point (in CI they are read from the
        environment).
      </p>
    </Empty>
  );
}

function MetricSection({
  metric,
  query,
  filters,
}: {
  metric: HistoryMetric;
  query: ReturnType<typeof useHistorySeries>[number];
  filters: HistoryFilters;
}) {
  const id = `history-${metric.name}-title`;
  return (
    <section className="panel" aria-labelledby={id} data-metric={metric.name}>
      <h2 id={id}>{metric.label}</h2>
      {isNoHistory(query.error) ? (
        <NoHistory filters={filters} detail={query.error.message} />
      ) : (
        <QueryStates
          query={query}
          loading={`Loading the ${metric.label}…`}
          error={`Could not load the ${metric.label}`}
        >
          {(series) => (
            <>
              {series.note && <p className="muted small">{series.note}</p>}
              {series.points.length === 0 ? (
                <NoHistory filters={filters} />
              ) : (
                <HistoryChart series={series} metric={metric} />
              )}
            </>
          )}
        </QueryStates>
      )}
    </section>
  );
}
