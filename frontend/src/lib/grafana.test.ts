import { describe, expect, it } from "vitest";
import { metaWithGrafana } from "../test/fixtures";
import { exploreUrl, logsExploreUrl, refId, runRange, traceExploreUrl } from "./grafana";

function panes(url: string) {
  const parsed = new URL(url);
  return {
    path: parsed.pathname,
    schemaVersion: parsed.searchParams.get("schemaVersion"),
    orgId: parsed.searchParams.get("orgId"),
    panes: JSON.parse(parsed.searchParams.get("panes") ?? "null"),
  };
}

describe("Grafana Explore URLs", () => {
  const grafana = metaWithGrafana.grafana;
  if (!grafana) throw new Error("fixture without grafana");
  const range = { from: 1_795_275_400_000, to: 1_795_275_500_000 };

  it("encodes one pane with the data source, the queries and the range", () => {
    const url = exploreUrl("http://grafana.test:3000/", "loki", [{ query: '{a="b"}' }], range);
    expect(url.startsWith("http://grafana.test:3000/explore?schemaVersion=1&panes=")).toBe(true);
    expect(url.endsWith("&orgId=1")).toBe(true);
    expect(panes(url)).toEqual({
      path: "/explore",
      schemaVersion: "1",
      orgId: "1",
      panes: {
        a: {
          datasource: "loki",
          queries: [{ refId: "A", query: '{a="b"}' }],
          range: { from: "1795275400000", to: "1795275500000" },
        },
      },
    });
  });

  it("looks a trace up by id in Tempo with TraceQL", () => {
    const { panes: pane } = panes(traceExploreUrl(grafana, "4f71fa22351c1e0f", range));
    expect(pane.a.datasource).toBe("tempo");
    expect(pane.a.queries).toEqual([
      { refId: "A", queryType: "traceql", query: "4f71fa22351c1e0f" },
    ]);
  });

  it("opens every LogQL query of the run in Loki", () => {
    const queries = [
      '{service_name="go"} | tracetax_run_id="r1"',
      '{service_name="go"} | tracetax_run_id="r2"',
    ];
    const { panes: pane } = panes(logsExploreUrl(grafana, queries, range));
    expect(pane.a.datasource).toBe("loki");
    expect(
      pane.a.queries.map((q: { refId: string; expr: string; query: string }) => [
        q.refId,
        q.expr,
        q.query,
      ]),
    ).toEqual([
      ["A", queries[0], queries[0]],
      ["B", queries[1], queries[1]],
    ]);
  });

  it("names queries like Grafana and covers the run with a minute either side", () => {
    expect([0, 1, 25, 26, 27].map(refId)).toEqual(["A", "B", "Z", "AA", "AB"]);
    const started = new Date("2026-11-21T13:36:38Z");
    const finished = new Date("2026-11-21T13:37:09Z");
    expect(runRange(started, finished)).toEqual({
      from: started.getTime() - 60_000,
      to: finished.getTime() + 60_000,
    });
    expect(runRange(null, null)).toEqual({ from: "now-6h", to: "now" });
  });
});
