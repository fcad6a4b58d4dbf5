import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { diagnostics } from "../../test/fixtures";
import { RecommendationPanel } from "./RecommendationPanel";

afterEach(cleanup);

describe("the recommendation's blind spots", () => {
  it("warns of a configuration without telemetry and lists the rules not evaluated", () => {
    const base = diagnostics().recommendation;
    render(
      <RecommendationPanel
        recommendation={{
          ...base,
          no_telemetry: ["zero-code"],
          not_evaluated: [
            {
              rule: "cpu-over-budget",
              configuration: "ebpf",
              why: "its dropped spans are unknown",
            },
          ],
        }}
      />,
    );
    expect(screen.getByTestId("no-telemetry").textContent).toContain(
      "zero-code costs something but produced no span, log or metric",
    );
    const skipped = screen.getByTestId("not-evaluated");
    expect(within(skipped).getByText("cpu-over-budget")).toBeTruthy();
    expect(within(skipped).getByText("its dropped spans are unknown")).toBeTruthy();
  });
});

describe("the recommended processor", () => {
  it("is named as the backend names it for the service's language", () => {
    const base = diagnostics().recommendation;
    render(
      <RecommendationPanel
        recommendation={{
          ...base,
          processor: "agent",
          processor_name:
            "Node zero-code instrumentation (@opentelemetry/auto-instrumentations-node)",
        }}
      />,
    );
    expect(screen.getByText(/auto-instrumentations-node/)).toBeTruthy();
    expect(screen.queryByText(/Java agent/)).toBeNull();
  });
});
