import { describe, expect, it } from "vitest";
import { services } from "../../test/fixtures";
import {
  commandKnobs,
  concurrencyIssueTarget,
  demoKnobs,
  emptyConcurrency,
  toConcurrency,
} from "./concurrencyForm";

describe("the concurrency fields", () => {
  const [go, java] = services;

  it("offers a demo's own knobs (GET /services) and cores, in the knobs' order", () => {
    expect(demoKnobs(go)).toEqual(["gomaxprocs", "cores"]);
    expect(demoKnobs(java)).toEqual(["threads", "cores"]);
    expect(demoKnobs({ concurrency: ["workers", "bogus"] })).toEqual(["workers", "cores"]);
    // A service listed before the API said (or an unknown one): cores only.
    expect(demoKnobs({ concurrency: undefined })).toEqual(["cores"]);
    expect(demoKnobs(undefined)).toEqual(["cores"]);
  });

  it("offers a command GOMAXPROCS in Go only (its threads and workers are its argv's), and cores", () => {
    expect(commandKnobs("go")).toEqual(["gomaxprocs", "cores"]);
    for (const language of ["python", "java", "node", "other"]) {
      expect(commandKnobs(language)).toEqual(["cores"]);
    }
  });

  it("sends the offered knobs that were typed, nothing when none was", () => {
    expect(toConcurrency(emptyConcurrency(), ["threads", "cores"])).toBeUndefined();
    const draft = { threads: " 64 ", workers: "4", gomaxprocs: "", cores: "2" };
    expect(toConcurrency(draft, ["threads", "cores"])).toEqual({ threads: 64, cores: 2 });
    // A knob the service has not is never sent, even when a value was typed for another one.
    expect(toConcurrency(draft, ["gomaxprocs", "cores"])).toEqual({ cores: 2 });
    expect(toConcurrency({ ...draft, cores: "" }, ["gomaxprocs", "cores"])).toBeUndefined();
    // What is not a number goes as typed: the API's 422 names it beside the field.
    expect(
      toConcurrency({ ...draft, threads: "1.5", cores: "lots" }, ["threads", "cores"]),
    ).toEqual({ threads: 1.5, cores: "lots" });
  });

  it("places the API's messages beside the knob, else beside the group", () => {
    expect(concurrencyIssueTarget("concurrency", "threads")).toBe("concurrency.threads");
    expect(concurrencyIssueTarget("configurations.1.concurrency", "cores")).toBe(
      "configurations.1.concurrency.cores",
    );
    expect(concurrencyIssueTarget("concurrency", undefined)).toBe("concurrency");
    expect(concurrencyIssueTarget("concurrency", "bogus")).toBe("concurrency");
  });
});
