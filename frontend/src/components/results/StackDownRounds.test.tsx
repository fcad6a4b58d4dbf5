import { cleanup, render, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import { round } from "../../test/fixtures";
import { RoundsTable } from "./RoundsTable";
import { StackDownRounds } from "./StackDownRounds";

afterEach(cleanup);

const collectorAndTempo = {
  flagged: true,
  down: ["collector", "tempo"],
  before: {},
  after: { collector: "connection refused", tempo: "HTTP 503" },
};

describe("rounds during which the stack was down", () => {
  it("warns naming each round, its components and the stages they leave unknown", () => {
    const rounds = [
      round("none", 1),
      round("batch", 1, { order_index: 1, stack_health: collectorAndTempo }),
    ];
    render(
      <MemoryRouter>
        <StackDownRounds rounds={rounds} />
      </MemoryRouter>,
    );
    const banner = screen.getByTestId("stack-down-rounds");
    expect(banner.textContent).toContain(
      "a component of the stack was not ready before or after a round",
    );
    expect(within(banner).getByRole("listitem").textContent).toBe(
      "batch round 2: collector, tempo were down: its Collector and stored spans stages read unknown.",
    );
    expect(
      within(banner).getByRole("link", { name: "the stack's health" }).getAttribute("href"),
    ).toBe("/stack");
  });

  it("shows nothing when every component was ready", () => {
    render(
      <MemoryRouter>
        <StackDownRounds
          rounds={[round("none", 0, { stack_health: { flagged: false, down: [] } })]}
        />
      </MemoryRouter>,
    );
    expect(screen.queryByTestId("stack-down-rounds")).toBeNull();
  });

  it("gives the reasons in the round's row", () => {
    render(<RoundsTable rounds={[round("batch", 0, { stack_health: collectorAndTempo })]} />);
    const detail = screen.getByTestId("round-stack-health");
    expect(detail.textContent).toContain(
      "collector (after): connection refused; tempo (after): HTTP 503",
    );
    expect(document.querySelector('tr[data-round="batch-0"]')?.className).toContain("row-flagged");
  });
});
