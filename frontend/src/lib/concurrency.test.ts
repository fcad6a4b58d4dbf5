import { describe, expect, it } from "vitest";
import { concurrencyByConfiguration, concurrencyText } from "./concurrency";

describe("concurrency in words", () => {
  it("names the knobs set, in the knobs' order, cores last", () => {
    expect(concurrencyText({ cores: 2, threads: 64 })).toBe("threads 64, cores 2");
    expect(concurrencyText({ gomaxprocs: 1, workers: null })).toBe("gomaxprocs 1");
    expect(concurrencyText({})).toBe("");
    expect(concurrencyText(undefined)).toBe("");
  });

  it("reads each configuration's from a stored spec; nothing when none sets any", () => {
    const spec = {
      configurations: [
        { name: "threads-8", concurrency: { threads: 8 } },
        { name: "threads-64", concurrency: { threads: 64, cores: 2 } },
        { name: "defaults" },
      ],
    };
    expect(concurrencyByConfiguration(spec)).toEqual({
      "threads-8": "threads 8",
      "threads-64": "threads 64, cores 2",
      defaults: "",
    });
    expect(
      concurrencyByConfiguration({ configurations: [{ name: "none", concurrency: {} }] }),
    ).toEqual({});
    expect(concurrencyByConfiguration({})).toEqual({});
    expect(concurrencyByConfiguration(null)).toEqual({});
  });
});
