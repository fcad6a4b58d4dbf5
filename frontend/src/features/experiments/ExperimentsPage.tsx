import { Link, useSearchParams } from "react-router";
import { useExperiments, useServices } from "../../api/queries";
import { COLLECTOR_SERVICE } from "../../api/types";
import { QueryStates } from "../../components/States";
import { useDocumentTitle } from "../../lib/useDocumentTitle";
import { ExperimentsTable } from "./ExperimentsTable";

/**
 * `/`: every experiment, newest first, optionally only one service's (`?service=go`) or the
 * Collector pipelines' (`?service=collector`).
 */
export function ExperimentsPage() {
  useDocumentTitle("Experiments");
  const [params, setParams] = useSearchParams();
  const service = params.get("service") || null;
  const experiments = useExperiments(service);
  const services = useServices();

  const languages = services.data?.map((s) => s.language) ?? [];
  if (service && service !== COLLECTOR_SERVICE && !languages.includes(service))
    languages.push(service);
  const pipelines = service === COLLECTOR_SERVICE;

  return (
    <>
      <div className="page-head">
        <h1>Experiments</h1>
        <div className="page-actions">
          <Link className="button" to="/pipelines/new">
            New pipeline experiment
          </Link>
          <Link className="button button-primary" to="/experiments/new">
            New experiment
          </Link>
        </div>
      </div>
      <section className="panel" aria-labelledby="experiments-title">
        <div className="toolbar">
          <h2 id="experiments-title" className="visually-hidden">
            All experiments
          </h2>
          {/* A label beside its select, not around it: the select's accessible name stays
              "Service" whichever option is shown. */}
          <label htmlFor="service-filter">Service</label>
          <select
            id="service-filter"
            value={service ?? ""}
            onChange={(event) =>
              setParams(event.target.value ? { service: event.target.value } : {})
            }
          >
            <option value="">All services and pipelines</option>
            {languages.map((language) => (
              <option key={language} value={language}>
                {language}
              </option>
            ))}
            <option value={COLLECTOR_SERVICE}>Collector pipelines</option>
          </select>
          {services.isError && <span className="error">Services: {services.error.message}</span>}
        </div>
        <QueryStates
          query={experiments}
          loading="Loading experiments…"
          error="Could not load the experiments"
          empty={
            pipelines ? (
              <p>
                No Collector pipeline experiments yet. <Link to="/pipelines/new">Start one</Link>:
                pick the pipeline variants to compare with passthrough.
              </p>
            ) : service ? (
              <p>
                No experiments on <strong>{service}</strong> yet.{" "}
                <Link to="/">Show every service</Link> or{" "}
                <Link to="/experiments/new">start one</Link>.
              </p>
            ) : (
              <p>
                No experiments yet. <Link to="/experiments/new">Start the first one</Link>: pick a
                service, a baseline and the configurations to compare.
              </p>
            )
          }
        >
          {(list) => <ExperimentsTable experiments={list} />}
        </QueryStates>
      </section>
    </>
  );
}
