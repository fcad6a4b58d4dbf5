// The one place that turns an API response into data or an Error carrying the API's `detail`.
// Every request goes through `api` (typed from the backend's OpenAPI, see schema.d.ts) and
// `unwrap`; components never read response bodies themselves. Requests carry the API token
// when there is one (auth.ts); the live event stream, which needs the same, is eventStream.ts.

import createClient from "openapi-fetch";
import { currentToken, noteUnauthorized, withToken } from "./auth";
import type { paths } from "./schema";

export class ApiError extends Error {
  constructor(
    /** HTTP status; 0 when the backend could not be reached at all. */
    readonly status: number,
    message: string,
    /** The parsed error body, e.g. `{detail: [...]}` for a 422 (see validation.ts). */
    readonly body: unknown = null,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** The human-readable message of a FastAPI error body: `detail` as a string or a 422 list. */
export function detailMessage(body: unknown, fallback: string): string {
  if (body && typeof body === "object" && "detail" in body) {
    const detail = (body as { detail: unknown }).detail;
    if (typeof detail === "string") return detail;
    if (Array.isArray(detail)) {
      return detail
        .map((item: { loc?: unknown[]; msg?: string }) =>
          [item.loc?.slice(1).join("."), item.msg].filter(Boolean).join(": "),
        )
        .join("; ");
    }
  }
  return fallback;
}

/** The message to show for any error a query or mutation raised. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** The `detail` sentence of an error answer, read from a copy (the caller reads the body). */
export async function responseDetail(response: Response): Promise<string> {
  const fallback = `HTTP ${response.status} ${response.statusText}`.trim();
  try {
    return detailMessage(await response.clone().json(), fallback);
  } catch {
    return fallback;
  }
}

/**
 * Every API request: the token, when there is one (auth.ts), and a 401 reported to the token
 * prompt. `fetch` is looked up at call time so tests can stub it.
 */
export async function authorizedFetch(request: Request): Promise<Response> {
  const sent = currentToken();
  withToken(request.headers, sent);
  const response = await globalThis.fetch(request);
  if (response.status === 401) noteUnauthorized(await responseDetail(response), sent);
  return response;
}

// Absolute base URL: the browser would resolve a relative one, but `Request` in Node (tests)
// does not.
export const api = createClient<paths>({
  baseUrl: globalThis.location?.origin ?? "http://127.0.0.1:8000",
  fetch: authorizedFetch,
  headers: { Accept: "application/json" },
});

interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of a typed-client call, or an `ApiError` with the API's `detail` as its message.
 * `acceptStatuses` lists non-2xx statuses whose body is still data (e.g. the health report's 503).
 */
export async function unwrap<T>(
  pending: Promise<Outcome<T>>,
  acceptStatuses: number[] = [],
): Promise<T> {
  let outcome: Outcome<T>;
  try {
    outcome = await pending;
  } catch (error) {
    throw new ApiError(0, `Could not reach the backend (${errorMessage(error)})`);
  }
  const { data, error, response } = outcome;
  if (response.ok) return data as T;
  if (acceptStatuses.includes(response.status)) return error as T;
  const where = response.url ? `${new URL(response.url).pathname}: ` : "";
  const fallback = `${where}HTTP ${response.status} ${response.statusText}`.trim();
  throw new ApiError(response.status, detailMessage(error, fallback), error ?? null);
}
