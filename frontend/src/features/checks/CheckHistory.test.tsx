import { cleanup, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { CheckStatus } from "../../api/types";
import { CHECK_ID, checkExperiment, checkStatus, presets } from "../../test/fixtures";
import { invalid, queued, renderAt, renderFormPage, stubApi, submitted } from "../../test/render";
import { formatGrowth } from "./CheckHistory";
import { CheckPage } from "./CheckPage";
import { againstHistoryRequest, provenanceRequest } from "./checkForm";
import { NewCheckPage } from "./NewCheckPage";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const experiment = checkExperiment();
const at = { path: `/checks/${CHECK_ID}`, pattern: "/checks/:id" };

/** A check from a pull request's CI run, gated against main's last 10 checks. */
function ciCheck(extra: Partial<CheckStatus> = {}): CheckStatus {
  return checkStatus({
    configuration: "batch-tuned",
    baseline_configuration: "none",
    provenance: {
      repository: "acme/shop",
      branch: "feat/cache",
      commit: "9f1c2d3e4b5a69788796a5b4c3d2e1f0a9b8c7d6",
      pull_request: "42",
      ci_run_url: "https://github.com/acme/shop/actions/runs/77",
      ci_system: "github-actions",
    },
    machine: {
      fingerprint: "m-3f9a",
      cpu_model: "AMD EPYC 7763",
      cores: 4,
      memory_bytes: 16 * 1024 ** 3,
      kernel: "6.8.0",
      virtualization: "kvm",
    },
    against_history: { branch: "main", points: 10, max_growth_pct: 5 },
    history: [
      {
        metric: "p99",
        verdict: "fail",
        growth: 14.8,
        low: 12.9,
        high: 16.7,
        points: 10,
        reason:
          "p99 overhead grew by +14.8 points [+12.9, +16.7] against main's last 10 checks, over 5",
      },
      {
        metric: "cpu_per_request_us",
        verdict: "no_history",
        growth: null,
        low: null,
        high: null,
        points: 0,
        reason: "no check of main on this machine yet",
      },
    ],
    ...extra,
  } as Partial<CheckStatus>);
}

function renderCheck(check: CheckStatus, stored = experiment) {
  stubApi({
    [`GET /api/v1/checks/${CHECK_ID}`]: check,
    [`GET /api/v1/experiments/${experiment.id}`]: stored,
    "GET /api/v1/presets": presets,
  });
  return renderAt(<CheckPage />, at);
}

describe("CheckPage's history", () => {
  it("shows where the check came from and the machine it ran on", async () => {
    renderCheck(ciCheck());
    const commit = await screen.findByText("9f1c2d3");
    expect(commit.getAttribute("title")).toBe("9f1c2d3e4b5a69788796a5b4c3d2e1f0a9b8c7d6");
    expect(screen.getByText("acme/shop")).toBeTruthy();
    expect(screen.getByText("feat/cache")).toBeTruthy();
    expect(screen.getByText("42")).toBeTruthy();
    expect(screen.getByRole("link", { name: "github-actions" }).getAttribute("href")).toBe(
      "https://github.com/acme/shop/actions/runs/77",
    );
    expect(screen.getByText("m-3f9a")).toBeTruthy();
    expect(
      screen.getByText(/AMD EPYC 7763, 4 cores, 16.0 GiB, 6.8.0, virtualised \(kvm\)/),
    ).toBeTruthy();
  });

  it("says how to record provenance when a check has none", async () => {
    renderCheck(checkStatus());
    expect(await screen.findByText(/none recorded/)).toBeTruthy();
    expect(screen.getByText("not recorded yet")).toBeTruthy();
    expect(screen.queryByRole("heading", { name: /Against the history/ })).toBeNull();
  });

  it("leads with the overall verdict once judged against history, the same run's beside it", async () => {
    const sameRun = checkStatus().verdict as NonNullable<CheckStatus["verdict"]>;
    // The run itself passed its budget; p99 grew against main's history: CI exits 1.
    renderCheck(ciCheck({ verdict: { ...sameRun, verdict: "pass" }, overall: "fail" }));
    const title = await screen.findByRole("heading", { level: 1 });
    expect([...title.querySelectorAll(".badge")].map((badge) => badge.textContent)).toEqual([
      "fail",
      "pass",
    ]);
    expect(within(title).getByTestId("same-run-verdict").textContent).toBe("same run pass");
  });

  it("shows the same run's verdict alone without judgements against history", async () => {
    renderCheck(checkStatus({ overall: "fail" }));
    const title = await screen.findByRole("heading", { level: 1 });
    expect([...title.querySelectorAll(".badge")].map((badge) => badge.textContent)).toEqual([
      "fail",
    ]);
    expect(within(title).queryByTestId("same-run-verdict")).toBeNull();
  });

  it("lists the judgements against history, one row per metric", async () => {
    renderCheck(ciCheck());
    const section = (
      await screen.findByRole("heading", { name: "Against the history of main" })
    ).closest("section") as HTMLElement;
    const p99 = within(section).getByRole("row", { name: /^p99 latency overhead/ });
    expect(within(p99).getByText("+14.8 pp")).toBeTruthy();
    expect(within(p99).getByText("[+12.9 pp, +16.7 pp]")).toBeTruthy();
    expect(within(p99).getByText("≤ +5.0 pp")).toBeTruthy();
    expect(within(p99).getByText("fail")).toBeTruthy();
    expect(within(p99).getByText(/grew by \+14.8 points/)).toBeTruthy();
    const cpu = within(section).getByRole("row", { name: /^CPU per request overhead/ });
    expect(within(cpu).getByText("unknown")).toBeTruthy();
    expect(within(cpu).getByText("no history")).toBeTruthy();
  });

  it("links to the configuration's history, the flame-graph diff and the Markdown summary", async () => {
    // The differential flame graph needs stacks: a check samples them only when asked.
    renderCheck(ciCheck(), { ...experiment, spec: { ...experiment.spec, sample_stacks: true } });
    const links = await screen.findByRole("navigation", { name: "More about this check" });
    expect(
      (
        await within(links).findByRole("link", { name: "History of this configuration" })
      ).getAttribute("href"),
    ).toBe("/history?service=go&configuration=batch-tuned&branch=main");
    expect(
      within(links).getByRole("link", { name: "Where the added cost went" }).getAttribute("href"),
    ).toBe(`/experiments/${experiment.id}?flame=candidate&against=baseline`);
    const markdown = within(links).getByRole("link", { name: "Markdown summary" });
    expect(markdown.getAttribute("href")).toBe(`/api/v1/checks/${CHECK_ID}?format=markdown`);
    expect(markdown.hasAttribute("download")).toBe(true);
  });

  it("offers no flame-graph diff for a check that sampled no stacks", async () => {
    renderCheck(ciCheck());
    const links = await screen.findByRole("navigation", { name: "More about this check" });
    await within(links).findByRole("link", { name: "History of this configuration" });
    expect(within(links).queryByRole("link", { name: "Where the added cost went" })).toBeNull();
  });
});

describe("formatGrowth", () => {
  it("writes a growth in percentage points", () => {
    expect(formatGrowth(-0.04)).toBe("0.0 pp");
    expect(formatGrowth(-1.25)).toBe("\u22121.3 pp");
  });
});

describe("the new check's history fields", () => {
  it("turns BRANCH:N and the growth into the gate, blank into nothing", () => {
    expect(againstHistoryRequest({ againstHistory: "", maxGrowth: "3" })).toBeUndefined();
    expect(againstHistoryRequest({ againstHistory: "main", maxGrowth: "" })).toEqual({
      branch: "main",
    });
    expect(againstHistoryRequest({ againstHistory: " main:20 ", maxGrowth: "2.5" })).toEqual({
      branch: "main",
      points: 20,
      max_growth_pct: 2.5,
    });
    expect(againstHistoryRequest({ againstHistory: "main:ten", maxGrowth: "" })).toEqual({
      branch: "main",
      points: "ten",
    });
    expect(provenanceRequest({ branch: " ", commit: "" })).toBeUndefined();
    expect(provenanceRequest({ branch: "main", commit: "abc" })).toEqual({
      branch: "main",
      commit: "abc",
    });
  });

  it("sends the provenance and the gate, and shows the API's 422 beside the gate", async () => {
    const user = userEvent.setup();
    let answer = () => queued("new-check", 30);
    const { calls } = renderFormPage(<NewCheckPage />, "/checks/new", {
      "POST /api/v1/checks": () => answer(),
    });
    await user.type(await screen.findByLabelText("Branch"), "main");
    await user.type(screen.getByLabelText("Commit"), "abc1234");
    await user.type(screen.getByLabelText("Against history"), "main:10");
    await user.type(screen.getByLabelText("Max growth (percentage points)"), "3");
    answer = () =>
      invalid({
        loc: ["body", "against_history", "points"],
        msg: "Input should be greater than or equal to 2",
        type: "greater_than_equal",
      });
    await user.click(screen.getByRole("button", { name: "Run check" }));
    expect(
      (await screen.findByText(/^points: Input should be greater than or equal to 2/)).id,
    ).toBe("field-against_history-error");
    const body = calls.find(submitted)?.body as Record<string, unknown>;
    expect(body.provenance).toEqual({ branch: "main", commit: "abc1234" });
    expect(body.against_history).toEqual({ branch: "main", points: 10, max_growth_pct: 3 });
  });
});
