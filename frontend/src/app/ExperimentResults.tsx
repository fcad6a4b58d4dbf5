// The results of a finished experiment (or its rounds so far), by the spec's subject, looked
// up in app/resultsSubjects.ts. Each subject's sections are its own feature's (results/,
// pipeline-results/); the page around them is components/results'.

import type { ExperimentDetail, RoundSummary } from "../api/types";
import { SubjectResults } from "../components/results/SubjectResults";
import { Empty } from "../components/States";
import { resultsSubject, subjectName } from "./resultsSubjects";

function NoResultsPage({ experiment }: { experiment: ExperimentDetail }) {
  return (
    <Empty>
      <p>This version of the UI has no results page for {subjectName(experiment)} experiments.</p>
    </Empty>
  );
}

export function ExperimentResults({ experiment }: { experiment: ExperimentDetail }) {
  const subject = resultsSubject(experiment);
  return subject ? (
    <SubjectResults experiment={experiment} subject={subject} />
  ) : (
    <NoResultsPage experiment={experiment} />
  );
}

/** The rounds so far of a queued or running experiment, as its subject shows them. */
export function RoundsSoFar({ experiment }: { experiment: ExperimentDetail }) {
  const rounds: RoundSummary[] = experiment.rounds;
  const subject = resultsSubject(experiment);
  return subject ? subject.roundsSoFar(rounds) : <NoResultsPage experiment={experiment} />;
}
