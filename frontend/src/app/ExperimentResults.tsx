// The results of a finished experiment (or its rounds so far), by the spec's subject: the one
// place the UI tells a service from a Collector pipeline. Each subject's sections are its own
// feature's (results/, pipeline-results/); the page around them is components/results'.

import { type ExperimentDetail, isPipelineExperiment, type RoundSummary } from "../api/types";
import { SubjectResults } from "../components/results/SubjectResults";
import { collectorResults } from "../features/pipeline-results/collectorResults";
import { serviceResults } from "../features/results/serviceResults";

export function ExperimentResults({ experiment }: { experiment: ExperimentDetail }) {
  return isPipelineExperiment(experiment) ? (
    <SubjectResults experiment={experiment} subject={collectorResults} />
  ) : (
    <SubjectResults experiment={experiment} subject={serviceResults} />
  );
}

/** The rounds so far of a queued or running experiment, as its subject shows them. */
export function RoundsSoFar({ experiment }: { experiment: ExperimentDetail }) {
  const rounds: RoundSummary[] = experiment.rounds;
  return isPipelineExperiment(experiment)
    ? collectorResults.roundsSoFar(rounds)
    : serviceResults.roundsSoFar(rounds);
}
