import { Link, useSearchParams } from "react-router";
import { useExperiments, useServices } from "../../api/queries";
import { QueryStates } from "../../components/States";
import { useDocumentTitle } from "../../lib/useDocumentTitle";
import { ExperimentsTable } from "./ExperimentsTable";

/** `/`: every experiment, newest first, optionally only one service's (`?service=go`). */
export function ExperimentsPage() {
  useDocumentTitle("Experiments");
  const [params, setParams] = useSearchParams();
  const service = params.get("service") || null;
  const experiments = useExperiments(service);
  const services = useServices();

  const languages = services.data?.map((s) => s.language) ?? [];
  if (service && !languages.includes(service)) languages.push(service);

  return (
    <>
      <div className="page-head">
        <h1>Experiments</h1>
        <Link className="button button-primary" to="/experiments/new">
          New experiment
        </Link>
      </div>
      <section className="panel" aria-labelledby="experiments-title">
        <div className="toolbar">
          <h2 id="experiments-title" className="visually-hidden">
            All experiments
          </h2>
          <label>
            Service{" "}
            <select
              value={service ?? ""}
              onChange={(event) =>
                setParams(event.target.value ? { service: event.target.value } : {})
              }
            >
              <option value="">All services</option>
              {languages.map((language) => (
                <option key={language} value={language}>
                  {language}
                </option>
              ))}
            </select>
          </label>
          {services.isError && <span className="error">Services: {services.error.message}</span>}
        </div>
        <QueryStates
          query={experiments}
          loading="Loading experiments…"
          error="Could not load the experiments"
          empty={
            service ? (
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
