import { QueryClient } from "@tanstack/react-query";
import { ApiError } from "../api/client";

/** Retries only what may pass on a second try: network errors and 5xx, never a 4xx. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) return false;
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
