import { describe, expect, it } from "vitest";
import { ApiError } from "../../api/client";
import { formErrors, messagesFor } from "../../api/validation";
import { placeErrors, placeIssue } from "../../components/spec-form/errors";
import {
  argRows,
  commandProcessorProblem,
  type FormState,
  hasWhitespace,
  initialForm,
  moveRow,
  splitArgument,
  splitRow,
  toSpec,
  withService,
} from "../../components/spec-form/form";
import { pathShares } from "../../components/spec-form/RequestFields";
import { services } from "../../test/fixtures";
import { offeredPresets } from "./ConfigurationsEditor";
import { zeroCodePresets as presets } from "./yourServiceFixtures";

/** The form switched to "your service" (python: none and zero-code), filled in as the e2e does. */
function commandForm(): FormState {
  const form = withService(initialForm(services, presets), presets, { kind: "command" });
  form.command = {
    ...form.command,
    argv: argRows(["python3", "-m", "http.server", "18931", ""]),
    cwd: " /tmp/site ",
    port: "18931",
    health_path: "/",
    service_name: "",
  };
  form.load = { ...form.load, rate: "20", warmup_s: "1", duration_s: "3", max_throughput_s: "0" };
  form.rounds = "1";
  form.sampleStacks = false;
  return form;
}

describe("your service: the form state", () => {
  it("follows the service with its launches until the configurations are edited", () => {
    const demo = initialForm(services, presets);
    const python = withService(demo, presets, { kind: "command" });
    expect(python.kind).toBe("command");
    expect(python.command.language).toBe("python");
    expect(python.configurations.map((c) => [c.name, c.processor])).toEqual([
      ["none", "none"],
      ["zero-code", "agent"],
    ]);
    expect(python.baseline).toBe(python.configurations[0].uid);
    const go = withService(python, presets, { commandLanguage: "go" });
    expect(go.configurations.map((c) => c.name)).toEqual(["none", "ebpf"]);
    const other = withService(python, presets, { commandLanguage: "other" });
    expect(other.configurations.map((c) => c.name)).toEqual(["none", "batch-default"]);
    // Back to a demo: its own defaults.
    const back = withService(go, presets, { kind: "demo", language: "java" });
    expect(back.configurations.map((c) => c.name)).toEqual(["none", "batch-default"]);
    expect(back.language).toBe("java");
    // Edited configurations stay (a launch that no longer fits is marked in the editor).
    const edited = { ...python, configurationsEdited: true };
    expect(withService(edited, presets, { commandLanguage: "go" }).configurations).toBe(
      python.configurations,
    );
  });

  it("builds the spec of a command service: argv as a list, the load's requests", () => {
    const form = commandForm();
    form.request = {
      method: "POST",
      paths: [
        { uid: "p1", path: " /items?id=1 ", weight: "3" },
        { uid: "p2", path: "/health", weight: "" },
      ],
      headers: [
        { uid: "h1", name: " Content-Type ", value: "application/json" },
        { uid: "h2", name: "", value: "" },
      ],
      body: '{"a": 1}',
    };
    form.command.spans_per_request = "2";
    form.command.pprof_port = "6060";
    expect(toSpec(form, presets, services)).toEqual({
      subject: "service",
      service: {
        kind: "command",
        argv: ["python3", "-m", "http.server", "18931"],
        cwd: "/tmp/site",
        port: 18931,
        health_path: "/",
        language: "python",
        startup_timeout_s: 60,
        spans_per_request: 2,
        pprof_port: 6060,
      },
      configurations: [
        { name: "none", processor: "none", env: {}, baseline: true, preset: "none" },
        { name: "zero-code", processor: "agent", env: {}, baseline: false, preset: "zero-code" },
      ],
      load: {
        rate: 20,
        warmup_s: 1,
        duration_s: 3,
        connections: 16,
        max_throughput_s: 0,
        method: "POST",
        paths: [{ path: "/items?id=1", weight: 3 }, { path: "/health" }],
        headers: { "Content-Type": "application/json" },
        body: '{"a": 1}',
      },
      rounds: 1,
      seed: 0,
      sample_stacks: false,
    });
  });

  it("sends an argument with spaces as one, an empty one inside the list as given", () => {
    const form = commandForm();
    form.command.argv = argRows(["sh", "", "echo a  b", ""]);
    form.command.port = "abc";
    const service = toSpec(form, presets, services).service;
    expect(service).toMatchObject({ argv: ["sh", "", "echo a  b"], port: "abc" });
  });

  it("leaves the body out for GET and HEAD, and never sends the demos' path and query", () => {
    const form = commandForm();
    form.request.body = "ignored";
    const load = toSpec(form, presets, services).load;
    expect(load).toMatchObject({ method: "GET", paths: [{ path: "/", weight: 1 }], headers: {} });
    expect(load).not.toHaveProperty("body");
    expect(load).not.toHaveProperty("path");
    expect(load).not.toHaveProperty("query");
    form.request.method = "HEAD";
    expect(toSpec(form, presets, services).load).not.toHaveProperty("body");
    form.request.method = "DELETE";
    expect(toSpec(form, presets, services).load.body).toBe("ignored");
  });

  it("drops a preset whose launch was changed (zero-code made batch is not zero-code)", () => {
    const form = commandForm();
    form.configurations[1] = { ...form.configurations[1], processor: "batch" };
    expect(toSpec(form, presets, services).configurations[1]).toEqual({
      name: "zero-code",
      processor: "batch",
      env: {},
      baseline: false,
    });
  });

  it("leaves the port to TraceTax when argv says {port}", () => {
    const form = commandForm();
    form.command = {
      ...form.command,
      argv: argRows(["python3", "-m", "http.server", "{port}"]),
      port: "",
    };
    const service = toSpec(form, presets, services).service;
    expect(service).not.toHaveProperty("port");
    expect(service).toMatchObject({ argv: ["python3", "-m", "http.server", "{port}"] });
  });
});

describe("your service: argv rows", () => {
  it("moves, splits and tells spaced arguments", () => {
    const rows = argRows(["a", "b", "c"]);
    expect(moveRow(rows, 2, -1).map((r) => r.value)).toEqual(["a", "c", "b"]);
    expect(moveRow(rows, 0, 1).map((r) => r.value)).toEqual(["b", "a", "c"]);
    expect(moveRow(rows, 0, -1).map((r) => r.value)).toEqual(["a", "b", "c"]);
    expect(moveRow(rows, 2, 1).map((r) => r.value)).toEqual(["a", "b", "c"]);
    expect(hasWhitespace("python3 -m http.server")).toBe(true);
    expect(hasWhitespace("--flag=x")).toBe(false);
    expect(splitArgument("  python3 -m\thttp.server ")).toEqual(["python3", "-m", "http.server"]);
    const split = splitRow(argRows(["x", "python3 -m http.server", "y"]), 1);
    expect(split.map((r) => r.value)).toEqual(["x", "python3", "-m", "http.server", "y"]);
    expect(new Set(split.map((r) => r.uid)).size).toBe(5);
    expect(splitRow(argRows(["  "]), 0).map((r) => r.value)).toEqual(["  "]);
  });

  it("gives each path its share of the requests", () => {
    const rows = (weights: string[]) =>
      weights.map((weight, i) => ({ uid: `${i}`, path: "/", weight }));
    expect(pathShares(rows(["3", "1"]))).toEqual(["75 %", "25 %"]);
    expect(pathShares(rows(["", "1"]))).toEqual(["50 %", "50 %"]);
    expect(pathShares(rows(["0", "1"]))).toEqual(["", ""]);
  });
});

describe("your service: launches", () => {
  it("offers the launches its language has, the baseline and zero-code first", () => {
    const names = (language: string) => offeredPresets(presets, language, true).map((p) => p.name);
    expect(names("python")).toEqual(["none", "zero-code", "batch-default", "batch-tuned"]);
    expect(names("java")).toEqual([
      "none",
      "zero-code",
      "java-agent",
      "batch-default",
      "batch-tuned",
    ]);
    expect(names("go")).toEqual(["none", "ebpf", "batch-default", "batch-tuned"]);
    expect(names("other")).toEqual(["none", "batch-default", "batch-tuned"]);
    // A demo service keeps every preset of its language (the editor marks what cannot run).
    expect(offeredPresets(presets, "go", false).map((p) => p.name)).toContain("simple");
  });

  it("says why a processor cannot launch a command service", () => {
    expect(commandProcessorProblem("python", "none")).toBeNull();
    expect(commandProcessorProblem("other", "batch")).toBeNull();
    expect(commandProcessorProblem("node", "agent")).toBeNull();
    expect(commandProcessorProblem("go", "ebpf")).toBeNull();
    expect(commandProcessorProblem("python", "simple")).toMatch(/SimpleSpanProcessor/);
    expect(commandProcessorProblem("go", "agent")).toMatch(/use ebpf/);
    expect(commandProcessorProblem("other", "agent")).toMatch(/Python, Java or Node/);
    expect(commandProcessorProblem("java", "ebpf")).toMatch(/Go/);
  });
});

describe("your service: the API's errors beside their fields", () => {
  const unprocessable = (...detail: { loc: (string | number)[]; msg: string }[]) =>
    formErrors(new ApiError(422, "Unprocessable Content", { detail }));

  it("places each field of a command service, and a demo's as before", () => {
    const form = commandForm();
    const place = (field: string) => placeIssue(form, field);
    expect(place("service")).toBe("service");
    expect(place("service.port")).toBe("service.port");
    expect(place("service.cwd")).toBe("service.cwd");
    expect(place("service.language")).toBe("service.language");
    expect(place("service.argv")).toBe("service.argv");
    expect(place("service.argv.2")).toBe("service.argv.2");
    expect(place("service.argv.9")).toBe("service.argv");
    expect(place("configurations")).toBe("configurations");
    expect(place("configurations.1.processor")).toBe("configurations.1.processor");
    expect(place("configurations.1.preset")).toBe("configurations.1");
    expect(place("configurations.0.env.OTEL_X")).toBe("configurations.0.env");
    expect(place("configurations.0.inject_busy_us")).toBeNull();
    expect(place("configurations.7.processor")).toBeNull();
    expect(place("load")).toBe("load");
    expect(place("load.rate")).toBe("load.rate");
    expect(place("load.method")).toBe("load.method");
    expect(place("load.body")).toBe("load.body");
    expect(place("load.headers")).toBe("load.headers");
    expect(place("load.paths")).toBe("load.paths");
    expect(place("load.paths.0")).toBe("load.paths.0.path");
    expect(place("load.paths.0.path")).toBe("load.paths.0.path");
    expect(place("load.paths.0.weight")).toBe("load.paths.0.weight");
    expect(place("load.paths.3.weight")).toBe("load.paths");
    expect(place("load.path")).toBeNull();
    expect(place("load.stacks_s")).toBeNull();
    expect(place("sample_stacks")).toBe("sample_stacks");
    const demo = initialForm(services, presets);
    expect(placeIssue(demo, "service")).toBe("service.language");
    expect(placeIssue(demo, "load.query.spans")).toBe("load.query.spans");
    expect(placeIssue(demo, "load.query")).toBe("load.query");
    expect(placeIssue(demo, "load.path")).toBe("load.path");
    expect(placeIssue(demo, "load.paths")).toBeNull();
    expect(placeIssue(demo, "service.port")).toBeNull();
    const demoErrors = placeErrors(
      demo,
      unprocessable({ loc: ["body", "service"], msg: "Unable to extract tag" }),
    ).beside;
    expect(messagesFor(demoErrors, "service.language")).toEqual(["Unable to extract tag"]);
  });

  it("maps FastAPI's locations and our SpecError's onto the form, the rest to the summary", () => {
    const form = commandForm();
    const errors = unprocessable(
      {
        loc: ["body", "service", "command", "port"],
        msg: "Input should be less than or equal to 65535",
      },
      { loc: ["body", "service", "command"], msg: "pprof_port must differ from port" },
      { loc: ["body", "service", "command", "argv", 0], msg: "Input should be a valid string" },
      {
        loc: ["body", "configurations", 1, "processor"],
        msg: "the python zero-code set is not installed",
      },
      { loc: ["configurations", 0, "processor"], msg: "a SpecError without body" },
      { loc: ["body", "configurations", 0, "inject_busy_us"], msg: "set it to 0" },
      { loc: ["body", "configurations", 1, "env", "OTEL_X"], msg: "bad value" },
      {
        loc: ["body", "load", "paths", 0, "path"],
        msg: "String should match pattern '^/[^\\s#]*$'",
      },
      { loc: ["body", "load"], msg: "a GET request carries no body" },
      { loc: ["body"], msg: "the whole spec" },
    );
    expect(errors.form).toEqual(["the whole spec"]);
    const { beside, unplaced } = placeErrors(form, errors);
    expect(messagesFor(beside, "service.port")).toEqual([
      "Input should be less than or equal to 65535",
    ]);
    expect(messagesFor(beside, "service")).toEqual(["pprof_port must differ from port"]);
    expect(messagesFor(beside, "service.argv.0")).toEqual(["Input should be a valid string"]);
    expect(messagesFor(beside, "configurations.1.processor")).toEqual([
      "the python zero-code set is not installed",
    ]);
    expect(messagesFor(beside, "configurations.0.processor")).toEqual(["a SpecError without body"]);
    expect(messagesFor(beside, "configurations.1.env", true)).toEqual(["OTEL_X: bad value"]);
    expect(messagesFor(beside, "load.paths.0.path")).toHaveLength(1);
    expect(messagesFor(beside, "load")).toEqual(["a GET request carries no body"]);
    expect(unplaced).toEqual([
      { field: "configurations.0.inject_busy_us", message: "set it to 0" },
    ]);
    expect(beside.form).toEqual(["the whole spec"]);
  });
});
