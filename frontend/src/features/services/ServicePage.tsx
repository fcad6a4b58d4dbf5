import { Link, useParams } from "react-router";
import { useServiceHistory } from "../../api/queries";
import type { ServiceHistory } from "../../api/types";
import {
  formatMetricInterval,
  formatMetricValue,
  HISTORY_METRICS,
  historyPath,
  isNoHistory,
  shortSha,
} from "../../components/history/historyMetrics";
import { Sparkline } from "../../components/history/Sparkline";
import { VerdictTag } from "../../components/history/VerdictTag";
import { Empty, QueryStates } from "../../components/States";
import { formatDateTime, MISSING } from "../../lib/format";
import { useDocumentTitle } from "../../lib/useDocumentTitle";

type ConfigurationHistory = ServiceHistory["configurations"][number];

/**
 * `/services/:service`: each configuration checked on this service, its latest overhead per
 * metric with the interval and verdict, and its recent trend; each links to its History page.
 */
export function ServicePage() {
  const { service = "" } = useParams();
  useDocumentTitle(`Service ${service}`);
  const summary = useServiceHistory(service);
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Service {service}</h1>
          <p className="muted">
            The latest check of each configuration, and its recent trend: the paired overhead
            against the baseline measured in the same run, with its 95% interval.
          </p>
        </div>
        <div className="page-actions">
          <Link to={`/?service=${encodeURIComponent(service)}`}>Its experiments</Link>
          <Link to={historyPath({ service })}>History</Link>
        </div>
      </div>
      {isNoHistory(summary.error) ? (
        <NoChecks service={service} detail={summary.error.message} />
      ) : (
        <QueryStates
          query={summary}
          loading={`Loading the checks of ${service}…`}
          error={`Could not load the history of ${service}`}
        >
          {(data) =>
            data.configurations.length === 0 ? (
              <NoChecks service={service} />
            ) : (
              data.configurations.map((configuration) => (
                <ConfigurationPanel
                  key={configuration.configuration}
                  service={service}
                  configuration={configuration}
                />
              ))
            )
          }
        </QueryStates>
      )}
    </>
  );
}

/** No check of the service yet: how to start its history; `detail`: the API's sentence. */
function NoChecks({ service, detail }: { service: string; detail?: string }) {
  return (
    <Empty>
      {detail && <p className="muted small">{detail}</p>}
      <p>
        No check of {service} has been recorded yet. Run{" "}
        <code>tracetax check --service {service} --candidate CONFIGURATION --branch main ...</code>{" "}
        (in CI the branch and commit are read from the environment) to start a history.
      </p>
    </Empty>
  );
}

function ConfigurationPanel({
  service,
  configuration,
}: {
  service: string;
  configuration: ConfigurationHistory;
}) {
  const name = configuration.configuration;
  const id = `configuration-${name}-title`;
  return (
    <section className="panel" aria-labelledby={id} data-configuration={name}>
      <div className="section-head">
        <h2 id={id}>{name}</h2>
        <Link to={historyPath({ service, configuration: name })}>History of {name}</Link>
      </div>
      <p className="muted small">
        {configuration.checks} check{configuration.checks === 1 ? "" : "s"} recorded.
      </p>
      <div className="table-scroll">
        <table className="service-latest">
          <caption className="visually-hidden">Latest overhead of {name} per metric</caption>
          <thead>
            <tr>
              <th scope="col">Metric</th>
              <th scope="col">Latest</th>
              <th scope="col">95% interval</th>
              <th scope="col">Verdict</th>
              <th scope="col">Commit</th>
              <th scope="col">Trend</th>
              <th scope="col">Change points</th>
            </tr>
          </thead>
          <tbody>
            {HISTORY_METRICS.map((metric) => {
              const latest = configuration.latest[metric.name];
              const trend = configuration.trend[metric.name] ?? [];
              const unit = metric.unit;
              return (
                <tr key={metric.name} data-metric={metric.name}>
                  <th scope="row">{metric.label}</th>
                  <td className="number">
                    {latest ? formatMetricValue(latest.estimate, unit) : MISSING}
                  </td>
                  <td className="number">
                    {latest ? formatMetricInterval(latest.low, latest.high, unit) : MISSING}
                  </td>
                  <td>{latest ? <VerdictTag verdict={latest.verdict} /> : MISSING}</td>
                  <td>
                    {latest ? (
                      <Link to={`/checks/${latest.check_id}`} className="mono">
                        {shortSha(latest.commit) ?? formatDateTime(latest.created_at)}
                      </Link>
                    ) : (
                      MISSING
                    )}
                  </td>
                  <td>
                    <Sparkline
                      values={trend}
                      label={`${metric.label} of ${name}, last ${trend.length} checks`}
                    />
                  </td>
                  <td className="number">{configuration.change_points[metric.name] ?? 0}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
