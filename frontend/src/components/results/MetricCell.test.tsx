import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { change, diagnostics } from "../../test/fixtures";
import type { CellData } from "./comparison";
import { MetricCell } from "./MetricCell";

afterEach(cleanup);

const overhead = diagnostics().overhead["batch-default"];

const cell: CellData = {
  configuration: "batch-default",
  value: 900,
  text: "900 µs",
  isBaseline: false,
  overhead: overhead.p50,
  significant: true,
  direction: "worse",
  limitedBy: null,
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
  it("shows the value, the absolute change with its interval, the relative change and the direction", () => {
    const td = renderCell(cell);
    expect(td.textContent).toContain("900 µs");
    expect(td.textContent).toContain("+300 µs (+249 to +351 µs)");
    expect(td.textContent).toContain("+50% · worse");
    expect(td.textContent).toContain("Holm p = 0.003 · 5 pairs");
    expect(td.getAttribute("data-direction")).toBe("worse");
    // The server's sentence and the test after Holm are in the tooltip.
    const tooltip = td.querySelector(".metric-change")?.getAttribute("title") ?? "";
    expect(tooltip).toContain("+300 µs p50 (+249 µs to +351 µs), +50.0% — worse");
    expect(tooltip).toContain("relative 95% interval +42% to +58%");
    expect(tooltip).toContain("after Holm over the configuration's metrics");
  });

  it("colours a throughput drop as worse and a smaller RSS as better, by direction not sign", () => {
    const throughput = renderCell({
      ...cell,
      text: "5,333 req/s",
      overhead: overhead.max_throughput_rps,
      limitedBy: "load generator",
    });
    expect(throughput.getAttribute("data-direction")).toBe("worse");
    expect(throughput.textContent).toContain("\u2212576 req/s");
    expect(throughput.textContent).toContain("\u221297% · worse");
    expect(throughput.textContent).toContain("limited by: load generator");
    cleanup();
    const rss = renderCell({ ...cell, overhead: overhead.rss_max_bytes, direction: "better" });
    expect(rss.getAttribute("data-direction")).toBe("better");
    expect(rss.textContent).toContain("\u221212% · better");
  });

  it("shows no change for the baseline itself", () => {
    const td = renderCell({ ...cell, isBaseline: true, overhead: null, direction: null });
    expect(td.textContent).toBe("900 µs");
    expect(td.hasAttribute("data-direction")).toBe(false);
  });

  it("says no significant change, and why an interval is missing", () => {
    const td = renderCell({
      ...cell,
      overhead: overhead.cpu_per_request_us,
      significant: false,
      direction: "unchanged",
    });
    expect(td.textContent).toContain("+250 µs");
    expect(td.textContent).toContain("+50% · no significant change");
    expect(td.textContent).toContain("an interval needs at least 2 paired rounds");
    expect(td.textContent).toContain("1 pair, no test");
    expect(td.getAttribute("data-direction")).toBe("unchanged");
  });

  it("says unknown, never 0, when nothing was measured", () => {
    const td = renderCell({
      ...cell,
      overhead: change("p50", [null], [null], {
        pairs: 0,
        direction: "unknown",
        p_value: null,
        p_adjusted: null,
        note: "not measured in any round that both the baseline and this configuration completed",
      }),
      direction: "unknown",
    });
    expect(td.textContent).toContain("unknown");
    expect(td.textContent).not.toMatch(/[+−]0/);
  });
});
