import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { isFinal } from "../api/types";
import { ErrorState, Loading } from "./States";

/** The way back from one thing's page to the list of them. */
export interface BackLink {
  to: string;
  label: string;
}

/**
 * The page of one thing loaded by its id (its query polls until the thing is final): loading,
 * or the error under a head with the way back; `children(data)` once it is there.
 */
export function DetailGate<T>({
  query,
  what,
  heading,
  back,
  children,
}: {
  query: UseQueryResult<T>;
  /** "the calibration": "Loading the calibration…", "Could not load the calibration". */
  what: string;
  /** The head while there is nothing to show: "Calibration 5d1c7e0a". */
  heading: string;
  back: BackLink;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading>{`Loading ${what}…`}</Loading>;
  if (query.isError) {
    return (
      <>
        <div className="page-head">
          <h1>{heading}</h1>
          <Link to={back.to}>{back.label}</Link>
        </div>
        <ErrorState
          title={`Could not load ${what}`}
          error={query.error}
          onRetry={() => query.refetch()}
        />
      </>
    );
  }
  return children(query.data);
}

/** The head of one thing's page: its title, its full id, the way back, and its error if any. */
export function DetailHead({
  title,
  id,
  back,
  error,
  errorTone = "error",
}: {
  title: ReactNode;
  id: string;
  back: BackLink;
  error?: string | null;
  errorTone?: "error" | "info";
}) {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>{title}</h1>
          <p className="muted small mono">{id}</p>
        </div>
        <Link to={back.to}>{back.label}</Link>
      </div>
      {error && (
        <p className={`banner banner-${errorTone}`} role="status">
          {error}
        </p>
      )}
    </>
  );
}

/**
 * What a check or a calibration shows once the experiment behind it is final; till then, what
 * it waits for, and a link to watch the experiment.
 */
export function OnceFinal({
  status,
  experimentId,
  subject,
  outcome,
  children,
}: {
  status: string;
  experimentId: string;
  /** "The check's experiment". */
  subject: string;
  /** "the verdict". */
  outcome: string;
  children: ReactNode;
}) {
  if (isFinal(status)) return children;
  return (
    <Loading>
      {subject} is {status}; {outcome} comes when it finishes.{" "}
      <Link to={`/experiments/${experimentId}`}>Watch its progress</Link>
    </Loading>
  );
}

/** One line of a page's summary (`<dl className="spec-summary">`): what, and its value. */
export function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}
