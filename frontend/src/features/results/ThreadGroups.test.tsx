import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { ComparisonTable } from "../../components/results/ComparisonTable";
import { aggregates } from "../../test/fixtures";
import { ThreadGroups } from "./ThreadGroups";

afterEach(cleanup);

const configurations = [
  aggregates("none", 1, {
    thread_groups: {
      "http-worker-*": {
        threads: 8,
        rounds: 3,
        cpu_per_request_us: 300,
        ctx_per_request: 2,
        cpu_per_span_us: null,
        ctx_per_span: null,
      },
    },
  }),
  aggregates("batch-64", 1.5, {
    thread_groups: {
      "http-worker-*": {
        threads: 64,
        rounds: 3,
        cpu_per_request_us: 410,
        ctx_per_request: 2.4,
        cpu_per_span_us: 82,
        ctx_per_span: 0.48,
      },
      BatchSpanProces: {
        threads: 1,
        rounds: 3,
        cpu_per_request_us: 20,
        ctx_per_request: 1.5,
        cpu_per_span_us: 4.1,
        ctx_per_span: 0.3,
      },
    },
  }),
];
const concurrency = { none: "threads 8", "batch-64": "threads 64" };

describe("ThreadGroups", () => {
  it("shows a table per configuration, the batch worker first, unknown where not measured", () => {
    render(
      <ThreadGroups
        configurations={configurations}
        order={["none", "batch-64"]}
        concurrency={concurrency}
      />,
    );
    expect(screen.getByTestId("batch-worker-finding").textContent).toContain(
      "CPU and context switches per span rise with the request threads",
    );
    const batch = screen.getByRole("table", { name: "batch-64 threads 64" });
    const rows = within(batch).getAllByRole("row").slice(1);
    expect(rows.map((row) => row.dataset.group)).toEqual(["BatchSpanProces", "http-worker-*"]);
    expect(
      within(rows[0])
        .getAllByRole("cell")
        .map((cell) => cell.textContent),
    ).toEqual(["1", "20.0", "1.50", "4.10", "0.300"]);
    expect(within(rows[0]).getByText("batch processor worker")).toBeTruthy();
    const none = screen.getByRole("table", { name: "none threads 8" });
    expect(within(none).getAllByRole("row")[1].querySelectorAll("td")[3].textContent).toBe(
      "unknown",
    );
  });

  it("leaves out the per-span columns and the finding when nothing has them", () => {
    render(
      <ThreadGroups
        configurations={configurations.slice(0, 1)}
        order={["none"]}
        concurrency={{}}
      />,
    );
    expect(screen.queryByTestId("batch-worker-finding")).toBeNull();
    const table = screen.getByRole("table", { name: /none the service's default concurrency/ });
    expect(within(table).queryByRole("columnheader", { name: "CPU µs / span" })).toBeNull();
    expect(screen.getByText(/per span: unknown/)).toBeTruthy();
  });

  it("names each configuration's concurrency in the side-by-side table", () => {
    render(
      <ComparisonTable
        configurations={configurations}
        baseline="none"
        order={["none", "batch-64"]}
        concurrency={{ none: "", "batch-64": "threads 64" }}
      />,
    );
    expect(screen.getAllByTestId("concurrency").map((cell) => cell.textContent)).toEqual([
      "default concurrency",
      "threads 64",
    ]);
    cleanup();
    render(<ComparisonTable configurations={configurations} baseline="none" order={["none"]} />);
    expect(screen.queryByTestId("concurrency")).toBeNull();
  });
});
