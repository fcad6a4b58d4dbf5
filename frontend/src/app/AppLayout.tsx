import { useEffect, useRef } from "react";
import { NavLink, Outlet, ScrollRestoration, useLocation } from "react-router";
import { TokenPrompt } from "./TokenPrompt";

/** Header with the main navigation; every page renders into <main>, below the token prompt
 * when the API asks for one. */
export function AppLayout() {
  const { pathname } = useLocation();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);

  // After a client-side navigation, keyboard and screen-reader users start at the new page.
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    if (pathname) main.current?.focus({ preventScroll: true });
  }, [pathname]);

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <div className="brand">
          <NavLink to="/" className="brand-name">
            TraceTax
          </NavLink>
          <span className="brand-tagline">What OpenTelemetry costs your service</span>
        </div>
        <nav aria-label="Main">
          <NavLink to="/" end>
            Experiments
          </NavLink>
          <NavLink to="/experiments/new">New experiment</NavLink>
          <NavLink to="/pipelines/new">New pipeline experiment</NavLink>
          <NavLink to="/checks">CI checks</NavLink>
          <NavLink to="/history">History</NavLink>
          <NavLink to="/calibrations">Calibrate</NavLink>
          <NavLink to="/tunings">Tuning</NavLink>
          <NavLink to="/stack">Stack</NavLink>
        </nav>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        <TokenPrompt />
        <Outlet />
      </main>
      <ScrollRestoration />
    </div>
  );
}
