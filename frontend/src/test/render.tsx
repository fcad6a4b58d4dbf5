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

/**
 * Stubs fetch with handlers keyed "METHOD /path" (the query string is not part of the key);
 * returns the list of requests made, with their parsed JSON bodies.
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
      const route = routes[`${request.method} ${url.pathname}`];
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
