import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { CellData } from "./comparison";
import { MetricCell } from "./MetricCell";

afterEach(cleanup);

const cell: CellData = {
  configuration: "simple",
  value: 6000,
  text: "6.00 ms",
  isBaseline: false,
  diffPercent: 50,
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
  it("shows the value and its difference against the baseline", () => {
    const td = renderCell(cell);
    expect(td.textContent).toContain("6.00 ms");
    expect(td.textContent).toContain("+50 %");
    expect(td.className).not.toContain("is-significant");
  });

  it("shows no difference for the baseline itself", () => {
    const td = renderCell({ ...cell, isBaseline: true, diffPercent: null, worse: null });
    expect(td.textContent).toBe("6.00 ms");
  });

  it("renders an interval and highlights a significant difference when given", () => {
    const td = renderCell({ ...cell, interval: [41.5, 58.25], significant: true });
    expect(td.textContent).toContain("[+42 %, +58 %]");
    expect(td.className).toContain("is-significant");
  });
});
