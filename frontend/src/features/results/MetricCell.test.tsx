import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { interval } from "../../test/fixtures";
import type { CellData } from "./comparison";
import { MetricCell } from "./MetricCell";

afterEach(cleanup);

const cell: CellData = {
  configuration: "simple",
  value: 6000,
  text: "6.00 ms",
  isBaseline: false,
  overhead: interval(50, -100, 435.6),
  significant: false,
  worse: true,
};

function renderCell(data: CellData) {
  render(
    <table>
      <tbody>
        <tr>
          <MetricCell cell={data} />
        </tr>
      </tbody>
    </table>,
  );
  return screen.getByRole("cell");
}

describe("MetricCell", () => {
  it("shows the value, the diagnostics' overhead and its interval", () => {
    const td = renderCell(cell);
    expect(td.textContent).toContain("6.00 ms");
    expect(td.textContent).toContain("+50 %");
    expect(td.textContent).toContain("[\u2212100 %, +436 %]");
    expect(td.textContent).toContain("(worse than the baseline)");
    expect(td.className).not.toContain("is-significant");
  });

  it("shows no overhead for the baseline itself", () => {
    const td = renderCell({ ...cell, isBaseline: true, overhead: null, worse: null });
    expect(td.textContent).toBe("6.00 ms");
  });

  it("highlights a significant overhead, in words too", () => {
    const td = renderCell({ ...cell, overhead: interval(50, 41.5, 58.25), significant: true });
    expect(td.textContent).toContain("[+42 %, +58 %]");
    expect(td.className).toContain("is-significant");
    expect(td.textContent).toContain("significant");
  });

  it("says why an overhead has no interval", () => {
    const td = renderCell({
      ...cell,
      overhead: interval(12, null, null, { note: "an interval needs at least 2 rounds" }),
    });
    expect(td.textContent).toContain("+12 %");
    expect(td.textContent).toContain("an interval needs at least 2 rounds");
  });
});
