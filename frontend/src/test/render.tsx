// Test helpers: render inside the app's providers, and answer fetch calls per route.

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import type { ReactElement } from "react";
import { createMemoryRouter, RouterProvider } from "react-router";
import { vi } from "vitest";
import { presets, services } from "./fixtures";

export function testQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: { queries: { retry: false, gcTime: Infinity }, mutations: { retry: false } },
  });
}

/** Renders `element` at `path` (matched against `pattern`) with a fresh query client. */
export function renderAt(
  element: ReactElement,
  { path = "/", pattern = "/", queryClient = testQueryClient() } = {},
) {
  const router = createMemoryRouter(
    [
      { path: pattern, element },
      { path: "*", element: <p>elsewhere</p> },
    ],
    { initialEntries: [path] },
  );
  const result = render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { ...result, router, queryClient };
}

export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json" },
  });
}

type Handler = (request: Request, body: unknown) => Response | Promise<Response>;

/** One run's seconds and one round's side-by-side seconds in the stub's estimates. */
export const STUB_RUN_S = 30;
export const STUB_SIDE_BY_SIDE_S = 20;
/** The rates of a ramp in the stub's estimates (the backend's for the form's defaults). */
export const STUB_RAMP_RATES = [
  1000, 1500, 2250, 3375, 5062.5, 7593.8, 11390.6, 17085.9, 25628.9, 38443.4, 57665.0, 86497.6,
];

/**
 * POST …/estimate as the stubs answer it: two configurations a round of STUB_RUN_S each plus
 * STUB_SIDE_BY_SIDE_S, at the rounds the body asks for (5 unset), up to the precision's or the
 * check's wall time, STUB_RAMP_RATES with a ramp. The backend's tests check its arithmetic; the
 * UI's check that a form asks for its request's estimate and shows the answer.
 */
export function estimated(_request: Request, body: unknown): Response {
  const sent = (body ?? {}) as {
    rounds?: unknown;
    max_wall_time_s?: number;
    precision?: { max_wall_time_s?: number };
    load?: { ramp?: { step_s?: unknown } };
  };
  const rounds = typeof sent.rounds === "number" ? sent.rounds : 5;
  if (!(rounds > 0)) return json(422, { detail: [{ loc: ["body", "rounds"], msg: "bad" }] });
  return json(200, {
    seconds: rounds * (2 * STUB_RUN_S + STUB_SIDE_BY_SIDE_S),
    rounds,
    configurations: 2,
    per_run_s: STUB_RUN_S,
    side_by_side_s: STUB_SIDE_BY_SIDE_S,
    up_to_s: sent.precision?.max_wall_time_s ?? sent.max_wall_time_s ?? null,
    ramp_steps: sent.load?.ramp ? STUB_RAMP_RATES.length : 0,
    ramp_rates: sent.load?.ramp ? STUB_RAMP_RATES : [],
    ramp_step_s: sent.load?.ramp ? (sent.load.ramp.step_s ?? 3) : null,
  });
}

/** A check's commands as the backend answers them (app/check_commands.py builds them). */
export function checkCommandsAnswer(
  request: Record<string, unknown>,
  command: string,
  reasons: string[] = [],
): Record<string, unknown> {
  return {
    request,
    cli: { command, flags: reasons.length === 0, reasons },
    curl: `CHECK_ID=$(curl -sf -XPOST ${globalThis.location.origin}/api/v1/checks \\\n  -d '${JSON.stringify(request)}' | jq -r .id)`,
  };
}

/**
 * POST /api/v1/checks/commands as the stubs answer it: the variants the pipeline check request
 * names, spelled as flags. The backend's tests check the CLI's grammar; the UI's check that the
 * form asks for its request's commands and shows the answer.
 */
export function pipelineCommands(_request: Request, body: unknown): Response {
  type Variant = { pipeline?: string; config_file?: string } | undefined;
  const sent = (body ?? {}) as { baseline?: Variant; candidate?: Variant };
  const spell = (variant: Variant) => variant?.config_file ?? variant?.pipeline ?? "";
  const command = `tracetax check --api ${globalThis.location.origin} --collector --baseline ${spell(sent.baseline)} --candidate ${spell(sent.candidate)}`;
  return json(200, checkCommandsAnswer(sent as Record<string, unknown>, command));
}

/**
 * POST /api/v1/experiments/commands as the stubs answer it: the commands the backend builds for
 * a spec saved as spec.json, calling the `api` asked for (app/spec_commands.py; its tests check
 * the quoting). A spec without rounds is the stub's 422.
 */
export function specCommands(request: Request, body: unknown): Response {
  if (!((body as { rounds?: number } | null)?.rounds ?? 1))
    return json(422, { detail: [{ loc: ["body", "rounds"], msg: "bad" }] });
  const api = new URL(request.url).searchParams.get("api") ?? "";
  return json(200, {
    file: "spec.json",
    cli: "tracetax run spec.json",
    curl: `curl -s -XPOST ${api}/api/v1/experiments \\\n  -H 'content-type: application/json' -d @spec.json`,
  });
}

const DEFAULT_ROUTES: Record<string, Handler> = {
  "POST /api/v1/experiments/estimate": estimated,
  "POST /api/v1/checks/estimate": estimated,
  "POST /api/v1/calibrations/estimate": estimated,
  "POST /api/v1/checks/commands": pipelineCommands,
  "POST /api/v1/experiments/commands": specCommands,
};

/** A request that submits something (not what a form asks the backend about while it is
 * edited: its estimate, its commands): what a form's tests look for. */
export function submitted(call: { method: string; url: URL }): boolean {
  const asked = call.url.pathname.endsWith("/estimate") || call.url.pathname.endsWith("/commands");
  return call.method === "POST" && !asked;
}

/**
 * Stubs fetch with handlers keyed "METHOD /path" (the query string is not part of the key), the
 * forms' estimates, a pipeline check's and a spec's commands answered by `estimated`,
 * `pipelineCommands` and `specCommands` unless stubbed; returns the list of requests made,
 * with their parsed JSON bodies.
 */
export function stubApi(routes: Record<string, Handler | unknown>) {
  const calls: { method: string; url: URL; body: unknown }[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: Request | string, init?: RequestInit) => {
      const request =
        typeof input === "string" ? new Request(new URL(input, "http://localhost"), init) : input;
      const url = new URL(request.url);
      const text = request.method === "GET" ? "" : await request.clone().text();
      const body = text ? JSON.parse(text) : undefined;
      calls.push({ method: request.method, url, body });
      const key = `${request.method} ${url.pathname}`;
      const route = key in routes ? routes[key] : DEFAULT_ROUTES[key];
      if (route === undefined)
        return json(404, { detail: `no stub for ${request.method} ${url.pathname}` });
      return typeof route === "function" ? (route as Handler)(request, body) : json(200, route);
    }),
  );
  return calls;
}

/**
 * Renders a form page at `path` over the catalog it is built from (the services and presets),
 * with `routes` stubbed as well; returns the requests made with the render's result.
 */
export function renderFormPage(
  element: ReactElement,
  path: string,
  routes: Record<string, Handler | unknown>,
) {
  const calls = stubApi({
    "GET /api/v1/services": services,
    "GET /api/v1/presets": presets,
    ...routes,
  });
  return { calls, ...renderAt(element, { path, pattern: path }) };
}

/** The API's 202 for a queued check or calibration. */
export function queued(id: string, estimated_seconds: number): Response {
  return json(202, {
    id,
    experiment_id: "e",
    status: "queued",
    queue_position: 0,
    estimated_seconds,
  });
}

/** FastAPI's 422: an issue per field, its `loc` from "body". */
export function invalid(...detail: { loc: (string | number)[]; msg: string; type: string }[]) {
  return json(422, { detail });
}
