import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { errorMessage } from "../api/client";

/** Shown while something loads; announced politely to screen readers. */
export function Loading({ children = "Loading…" }: { children?: ReactNode }) {
  return (
    <p role="status" className="state state-loading">
      <span className="spinner" aria-hidden="true" />
      {children}
    </p>
  );
}

/** An error with the API's own message (see api/client.ts) and an optional retry. */
export function ErrorState({
  error,
  title = "Something went wrong",
  onRetry,
}: {
  error: unknown;
  title?: string;
  onRetry?: () => void;
}) {
  return (
    <div role="alert" className="state state-error">
      <p>
        <strong>{title}:</strong> {errorMessage(error)}
      </p>
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** Nothing to show yet, and what to do about it. */
export function Empty({ children }: { children: ReactNode }) {
  return <div className="state state-empty">{children}</div>;
}

/**
 * A query's loading and error states (the error with a retry), then `children(data)`; with
 * `empty`, an empty list shows that instead.
 */
export function QueryStates<T>({
  query,
  loading,
  error,
  empty,
  children,
}: {
  query: UseQueryResult<T>;
  /** What is loading: "Loading calibrations…". */
  loading: ReactNode;
  /** The error's title: "Could not load the calibrations". */
  error: string;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  const { data } = query;
  const isEmpty = empty !== undefined && Array.isArray(data) && data.length === 0;
  return (
    <>
      {query.isPending && <Loading>{loading}</Loading>}
      {query.isError && (
        <ErrorState title={error} error={query.error} onRetry={() => query.refetch()} />
      )}
      {isEmpty && <Empty>{empty}</Empty>}
      {data !== undefined && !isEmpty && children(data)}
    </>
  );
}
