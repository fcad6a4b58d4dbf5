// One place that turns an API response into data or an Error carrying the API's `detail`.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
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

/** GET a JSON resource; `acceptStatuses` lists non-2xx statuses whose body is still data. */
export async function getJson<T>(path: string, acceptStatuses: number[] = []): Promise<T> {
  const response = await fetch(path, { headers: { Accept: "application/json" } });
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok && !acceptStatuses.includes(response.status)) {
    throw new ApiError(response.status, detailMessage(body, `${path}: HTTP ${response.status}`));
  }
  return body as T;
}
