import { isRouteErrorResponse, Link, useRouteError } from "react-router";
import { errorMessage } from "../api/client";

/** Rendered by the router when a page throws while rendering, or for an unknown URL. */
export function RouteError() {
  const error = useRouteError();
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  return (
    <div className="app">
      <main id="main" className="panel">
        <h1>{notFound ? "Page not found" : "Something went wrong"}</h1>
        <p role="alert">
          {notFound
            ? "There is no page at this address."
            : isRouteErrorResponse(error)
              ? `${error.status} ${error.statusText}`
              : errorMessage(error)}
        </p>
        <p>
          <Link to="/">Back to the experiments</Link>
        </p>
      </main>
    </div>
  );
}
