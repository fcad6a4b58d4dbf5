// A subject the UI does not ship (a test's, like the backend's tests/subjects/fake) gets its
// results page from one registration: the page picks it by the spec's subject, its sections
// read the API's results and diagnostics, and the page's frame (contents, side by side,
// rounds) is the one every subject shares. A subject the UI has no page for says so.

import { useQuery } from "@tanstack/react-query";
import { cleanup, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ExperimentDetail, RoundRaw, RoundSummary } from "../api/types";
import type { ResultsSubject } from "../components/results/SubjectResults";
import { experiment } from "../test/fixtures";
import { renderAt, stubApi } from "../test/render";
import { ExperimentResults, RoundsSoFar } from "./ExperimentResults";
import { registerResultsSubject } from "./resultsSubjects";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

// What the backend's fake subject answers (tests/subjects/fake/subject.py).
interface FakeResults {
  baseline: string;
  configurations: { configuration: string; rounds_completed: number; cost_us: number | null }[];
  rounds: RoundRaw[];
}
interface FakeDiagnostics {
  added_cost_us: Record<string, number | null>;
  flagged_rounds?: string[];
}

async function get<T>(path: string): Promise<T> {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return (await response.json()) as T;
}

const fakeResults: ResultsSubject<FakeResults, FakeDiagnostics> = {
  useResults: (id) =>
    useQuery({
      queryKey: ["fake", id, "results"],
      queryFn: () => get<FakeResults>(`/api/v1/experiments/${id}/results`),
    }),
  useDiagnostics: (id) =>
    useQuery({
      queryKey: ["fake", id, "diagnostics"],
      queryFn: () => get<FakeDiagnostics>(`/api/v1/experiments/${id}/diagnostics`),
    }),
  sections: () => [["fake-cost", "Cost"]],
  comparison: {
    titleId: "fake-title",
    pending: "Computing…",
    errorTitle: "No diagnostics",
    nothingMeasured: "Nothing measured",
    stackSubject: "service",
    banners: () => null,
    table: ({ withDiagnostics }) =>
      withDiagnostics((diagnostics) => (
        <table aria-label="added cost">
          <tbody>
            {Object.entries(diagnostics.added_cost_us).map(([name, cost]) => (
              <tr key={name}>
                <td>{name}</td>
                <td>+{cost} µs</td>
              </tr>
            ))}
          </tbody>
        </table>
      )),
  },
  body: ({ measured }) => (
    <section id="fake-cost" aria-label="cost">
      {measured.map((c) => (
        <p key={c.configuration}>
          {c.configuration}: {c.cost_us} µs over {c.rounds_completed} rounds
        </p>
      ))}
    </section>
  ),
  telemetry: () => ({
    sampleTraces: null,
    logs: false,
    noTraces: "A fake subject sends no traces.",
  }),
  rounds: (rounds) => <p>{rounds.length} rounds</p>,
  roundsSoFar: (rounds: RoundSummary[]) => <p>{rounds.length} rounds so far</p>,
};

const fakeExperiment: ExperimentDetail = experiment({
  id: "fake-1",
  subject: "fake",
  service: "fake",
  configurations: ["base", "more"],
  baseline: "base",
  spec: {
    subject: "fake",
    configurations: [
      { name: "base", baseline: true, cost_us: 10 },
      { name: "more", cost_us: 25.5 },
    ],
    rounds: 3,
  },
  rounds: [],
});

describe("a subject's results page", () => {
  it("is the registered subject's, read from the API", async () => {
    const unregister = registerResultsSubject("fake", fakeResults);
    try {
      stubApi({
        "GET /api/v1/experiments/fake-1/results": {
          experiment_id: "fake-1",
          status: "completed",
          baseline: "base",
          configurations: [
            {
              configuration: "base",
              subject: "fake",
              rounds_completed: 3,
              rounds_failed: 0,
              cost_us: 10,
            },
            {
              configuration: "more",
              subject: "fake",
              rounds_completed: 3,
              rounds_failed: 0,
              cost_us: 25.5,
            },
          ],
          rounds: [],
        },
        "GET /api/v1/experiments/fake-1/diagnostics": {
          subject: "fake",
          experiment_id: "fake-1",
          baseline: "base",
          added_cost_us: { more: 15.5 },
        },
      });
      renderAt(<ExperimentResults experiment={fakeExperiment} />);
      const cost = await screen.findByRole("region", { name: "cost" });
      expect(within(cost).getByText("more: 25.5 µs over 3 rounds")).toBeTruthy();
      const table = await screen.findByRole("table", { name: "added cost" });
      expect(within(table).getByText("+15.5 µs")).toBeTruthy();
      expect(screen.getByRole("link", { name: "Cost" }).getAttribute("href")).toBe("#fake-cost");
      expect(screen.getByText("0 rounds")).toBeTruthy();
    } finally {
      unregister();
    }
  });

  it("says so for a subject the UI has no page for", () => {
    renderAt(<ExperimentResults experiment={fakeExperiment} />);
    expect(screen.getByText(/no results page for fake experiments/)).toBeTruthy();
    cleanup();
    renderAt(<RoundsSoFar experiment={fakeExperiment} />);
    expect(screen.getByText(/no results page for fake experiments/)).toBeTruthy();
  });
});
