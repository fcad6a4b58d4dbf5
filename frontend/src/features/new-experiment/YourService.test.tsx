import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { invalid, json, renderFormPage, submitted } from "../../test/render";
import { NewExperimentPage } from "./NewExperimentPage";
import { zeroCodePresets } from "./yourServiceFixtures";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderForm(post: (request: Request, body: unknown) => Response) {
  return renderFormPage(<NewExperimentPage />, "/experiments/new", {
    "GET /api/v1/presets": zeroCodePresets,
    "POST /api/v1/experiments": post,
  });
}

const user = () => userEvent.setup();

/** Replaces an input's text as a paste would (typing key by key is slow on a busy machine). */
async function fill(u: ReturnType<typeof userEvent.setup>, input: HTMLElement, text: string) {
  await u.clear(input);
  await u.paste(text);
}

async function chooseYourService(u: ReturnType<typeof userEvent.setup>) {
  await u.click(await screen.findByRole("radio", { name: /^Your service/ }));
  return screen.getByRole("group", { name: "Your service" });
}

function configurationNames() {
  return screen
    .getAllByLabelText("Name", { exact: true })
    .map((input) => (input as HTMLInputElement).value);
}

describe("New experiment: your service", () => {
  it("edits the argv as a list: a pasted line stays one argument until split", async () => {
    const u = user();
    renderForm(() => json(202, {}));
    const group = await chooseYourService(u);
    const program = within(group).getByLabelText("Argument 0 (the program)");
    await u.click(program);
    await u.paste("python3 -m http.server");
    expect((program as HTMLInputElement).value).toBe("python3 -m http.server");
    expect(within(group).getByText(/one argument with spaces in it/)).toBeTruthy();
    expect(program.getAttribute("aria-describedby")).toContain("field-service-argv-0-hint");
    await u.click(within(group).getByRole("button", { name: "Split into 3 arguments" }));
    expect(within(group).queryByText(/one argument with spaces in it/)).toBeNull();
    await u.click(within(group).getByRole("button", { name: "Add argument" }));
    await fill(u, within(group).getByLabelText("Argument 3"), "8000");
    // Reorder and remove.
    await u.click(within(group).getByRole("button", { name: "Move argument 3 up" }));
    const values = () =>
      within(group)
        .getAllByRole("textbox", { name: /^Argument \d/ })
        .map((input) => (input as HTMLInputElement).value);
    expect(values()).toEqual(["python3", "-m", "8000", "http.server"]);
    await u.click(within(group).getByRole("button", { name: "Move argument 2 down" }));
    expect(values()).toEqual(["python3", "-m", "http.server", "8000"]);
    await u.click(within(group).getByRole("button", { name: "Remove argument 1" }));
    expect(values()).toEqual(["python3", "http.server", "8000"]);
    expect(
      (within(group).getByRole("button", { name: "Move argument 0 up" }) as HTMLButtonElement)
        .disabled,
    ).toBe(true);
  });

  it("offers the launches of the language and follows it until edited", async () => {
    const u = user();
    renderForm(() => json(202, {}));
    const group = await chooseYourService(u);
    expect(configurationNames()).toEqual(["none", "zero-code"]);
    const processor = screen.getAllByLabelText("Processor")[1] as HTMLSelectElement;
    expect(processor.value).toBe("agent");
    expect(
      within(processor).getByRole("option", {
        name: "agent — zero-code agent",
      }),
    ).toBeTruthy();
    const simple = within(processor).getByRole("option", { name: /^simple/ }) as HTMLOptionElement;
    expect(simple.disabled).toBe(true);
    const add = screen.getByLabelText("Add a configuration") as HTMLSelectElement;
    const offered = within(add)
      .getAllByRole("option")
      .map((o) => o.textContent);
    expect(offered).toEqual([
      "none — as it is, SDK disabled, no agent",
      "zero-code — zero-code: opentelemetry-instrument",
      "batch-default — as it is (its own SDK)",
      "batch-tuned — as it is (its own SDK)",
      "custom (processor and variables of your choice)",
    ]);
    // The demo services' path and query give way to the request's method, paths and headers.
    expect(screen.queryByLabelText("Work per request (iters)")).toBeNull();
    expect(screen.getByLabelText("Path 1")).toBeTruthy();

    await u.selectOptions(within(group).getByLabelText("Language"), "go");
    expect(configurationNames()).toEqual(["none", "ebpf"]);
    // Once edited, the configurations stay; a launch that does not fit says why.
    await u.selectOptions(screen.getAllByLabelText("Processor")[1], "batch");
    await u.selectOptions(within(group).getByLabelText("Language"), "other");
    expect(configurationNames()).toEqual(["none", "ebpf"]);
    const card = screen.getAllByRole("listitem", { name: /^Configuration 2/ })[0];
    expect(within(card).getByText("as it is (its own SDK)")).toBeTruthy();
    await u.selectOptions(screen.getAllByLabelText("Processor")[1], "none");
    await u.selectOptions(within(group).getByLabelText("Language"), "java");
    expect(configurationNames()).toEqual(["none", "ebpf"]);
  });

  it("sends the command, its launches and the load's requests", { timeout: 20_000 }, async () => {
    const u = user();
    const { calls, router } = renderForm(() =>
      json(202, { id: "own", status: "queued", queue_position: 0, estimated_seconds: 18 }),
    );
    const group = await chooseYourService(u);
    await fill(u, within(group).getByLabelText("Argument 0 (the program)"), "./server");
    await u.click(within(group).getByRole("button", { name: "Add argument" }));
    await fill(u, within(group).getByLabelText("Argument 1"), "--name=a b");
    await fill(u, within(group).getByLabelText("Working directory"), "~/svc");
    await fill(u, within(group).getByLabelText("Port"), "9000");
    await fill(u, within(group).getByLabelText("Health path"), "/ready");
    await fill(u, within(group).getByLabelText("Service name"), "shop");
    await fill(u, within(group).getByLabelText("Spans per request (optional)"), "3");

    const body = screen.getByLabelText("Body") as HTMLTextAreaElement;
    expect(body.disabled).toBe(true);
    expect(screen.getByText(/GET requests carry no body/)).toBeTruthy();
    await u.selectOptions(screen.getByLabelText("Method"), "POST");
    expect(body.disabled).toBe(false);
    await fill(u, body, '{"q": 1}');
    await fill(u, screen.getByLabelText("Path 1"), "/search?q=x");
    await fill(u, screen.getByLabelText("Weight of path 1"), "3");
    await u.click(screen.getByRole("button", { name: "Add path" }));
    await fill(u, screen.getByLabelText("Path 2"), "/items");
    expect(screen.getByText("75 %")).toBeTruthy();
    await u.click(screen.getByRole("button", { name: "Add header" }));
    await fill(u, screen.getByLabelText("Header 1 name"), "Content-Type");
    await fill(u, screen.getByLabelText("Header 1 value"), "application/json");
    await u.click(screen.getByLabelText("Sample stacks"));

    // The preview shows what will be sent.
    expect(screen.getByTestId("spec-json").textContent).toContain('"kind": "command"');
    await u.click(screen.getByRole("button", { name: "Start experiment" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/experiments/own"));
    const sent = calls.find(submitted)?.body as Record<string, unknown>;
    expect(sent.service).toEqual({
      kind: "command",
      argv: ["./server", "--name=a b"],
      cwd: "~/svc",
      port: 9000,
      health_path: "/ready",
      service_name: "shop",
      language: "python",
      startup_timeout_s: 60,
      spans_per_request: 3,
    });
    expect(sent.load).toEqual({
      rate: 200,
      warmup_s: 5,
      duration_s: 15,
      connections: 16,
      max_throughput_s: 5,
      method: "POST",
      paths: [
        { path: "/search?q=x", weight: 3 },
        { path: "/items", weight: 1 },
      ],
      headers: { "Content-Type": "application/json" },
      body: '{"q": 1}',
    });
    expect(sent.configurations).toEqual([
      { name: "none", processor: "none", env: {}, baseline: true, preset: "none" },
      { name: "zero-code", processor: "agent", env: {}, baseline: false, preset: "zero-code" },
    ]);
    expect(sent.sample_stacks).toBe(false);
  });

  it("shows the API's errors beside their fields, the rest in the summary", async () => {
    const u = user();
    renderForm(() =>
      invalid(
        {
          type: "less_than_equal",
          loc: ["body", "service", "command", "port"],
          msg: "Input should be less than or equal to 65535",
        },
        {
          type: "value_error",
          loc: ["body", "service", "command", "argv"],
          msg: "argv[0] must name the program to run",
        },
        {
          type: "value_error",
          loc: ["body", "configurations", 1, "processor"],
          msg: "the python zero-code set is not installed",
        },
        {
          type: "string_pattern_mismatch",
          loc: ["body", "load", "paths", 0, "path"],
          msg: "String should match pattern",
        },
        {
          type: "value_error",
          loc: ["body", "load", "headers"],
          msg: "'a b' is not a valid header name",
        },
        {
          type: "value_error",
          loc: ["body", "configurations", 0, "inject_busy_us"],
          msg: "an injected cost is honoured by the demo services only",
        },
      ),
    );
    const group = await chooseYourService(u);
    const port = within(group).getByLabelText("Port");
    await fill(u, port, "70000");
    await u.click(screen.getByRole("button", { name: "Start experiment" }));

    const summary = await screen.findByRole("alert");
    expect(port.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById("field-service-port-error")?.textContent).toBe(
      "Input should be less than or equal to 65535",
    );
    expect(document.getElementById("field-service-argv-error")?.textContent).toBe(
      "argv[0] must name the program to run",
    );
    expect(document.getElementById("field-configurations-1-processor-error")?.textContent).toBe(
      "the python zero-code set is not installed",
    );
    expect(document.getElementById("field-load-paths-0-path-error")?.textContent).toBe(
      "String should match pattern",
    );
    expect(screen.getByLabelText("Path 1").getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById("field-load-headers-error")?.textContent).toBe(
      "'a b' is not a valid header name",
    );
    // Every message is in the summary; the field links go to what shows them.
    const port$ = within(summary).getByRole("link", { name: "service.port" });
    expect(port$.getAttribute("href")).toBe("#field-service-port");
    await u.click(port$);
    expect(document.activeElement).toBe(port);
    // One the form has no field for is the summary's alone, without a link.
    expect(
      within(summary).queryByRole("link", { name: "configurations.0.inject_busy_us" }),
    ).toBeNull();
    const item = within(summary).getByText("configurations.0.inject_busy_us").closest("li");
    expect(item?.textContent).toContain("an injected cost is honoured by the demo services only");
    expect(item?.textContent).toContain("no field of this form sets it");
  });
});
