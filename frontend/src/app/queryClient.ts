import { QueryClient } from "@tanstack/react-query";
import { ApiError } from "../api/client";

/**
 * Retries only what may pass on a second try: network errors, 5xx and 429 (the backend's bound on
 * reads that compute at once, TRACETAX_MAX_HEAVY_READS), never another 4xx.
 */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  const refused = error instanceof ApiError && error.status >= 400 && error.status < 500;
  if (refused && error.status !== 429) return false;
  return failureCount < 2;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: shouldRetry, refetchOnWindowFocus: false, staleTime: 2000 },
      mutations: { retry: false },
    },
  });
}
