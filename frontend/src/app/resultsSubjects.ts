// Each subject's results page, by the spec's `subject`: the one place the UI tells subjects
// apart (as the backend's subjects/registry.py does). A subject's sections are its own
// feature's (results/, pipeline-results/); a new subject is its feature and one line here, or,
// for a subject that is not part of the product (a test's), one call to registerResultsSubject.

import type {
  ResultsSubject,
  SubjectDiagnosticsData,
  SubjectResultsData,
} from "../components/results/SubjectResults";
import { collectorResults } from "../features/pipeline-results/collectorResults";
import { serviceResults } from "../features/results/serviceResults";

type AnyResultsSubject = ResultsSubject<SubjectResultsData, SubjectDiagnosticsData>;

// A spec without `subject` is a service's (every spec before pipelines had one).
const DEFAULT_SUBJECT = "service";

const SUBJECTS = new Map<string, AnyResultsSubject>([
  ["service", serviceResults],
  ["collector", collectorResults],
]);

/** Adds a subject's results page; returns what removes it again. */
export function registerResultsSubject<
  R extends SubjectResultsData,
  D extends SubjectDiagnosticsData,
>(name: string, subject: ResultsSubject<R, D>): () => void {
  if (SUBJECTS.has(name))
    throw new Error(`a results page for subject ${name} is already registered`);
  SUBJECTS.set(name, subject as AnyResultsSubject);
  return () => {
    SUBJECTS.delete(name);
  };
}

/** The subject an experiment's spec names (the default subject when it names none). */
export function subjectName(experiment: { spec?: unknown }): string {
  const spec = experiment.spec as { subject?: unknown } | null | undefined;
  return typeof spec?.subject === "string" ? spec.subject : DEFAULT_SUBJECT;
}

/** The results page of the experiment's subject; undefined for a subject the UI has none of. */
export function resultsSubject(experiment: { spec?: unknown }): AnyResultsSubject | undefined {
  return SUBJECTS.get(subjectName(experiment));
}
