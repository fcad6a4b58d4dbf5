import { cleanup, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { experiment } from "../../test/fixtures";
import { json, renderAt, stubApi } from "../../test/render";
import { RunAgainButton } from "./RunAgainButton";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** A finished experiment as the backend answers it: its secrets as "***". */
function answered() {
  const stored = experiment();
  const spec = stored.spec as { load: Record<string, unknown> };
  return {
    ...stored,
    spec: { ...stored.spec, load: { ...spec.load, headers: { Authorization: "***" } } },
  };
}

describe("RunAgainButton", () => {
  it("sends the spec back as answered, naming the experiment so the backend fills its secrets", async () => {
    const user = userEvent.setup();
    const calls = stubApi({
      "POST /api/v1/experiments": () =>
        json(202, { id: "again-1", status: "queued", queue_position: 1, estimated_seconds: 60 }),
    });
    const onQueued = vi.fn();
    const shown = answered();
    renderAt(<RunAgainButton experiment={shown} onQueued={onQueued} />);

    await user.click(screen.getByRole("button", { name: "Run again" }));

    await waitFor(() => expect(onQueued).toHaveBeenCalledWith("again-1"));
    const [post] = calls.filter((c) => c.method === "POST");
    expect(post.url.searchParams.get("from_experiment")).toBe(shown.id);
    expect(post.body).toEqual(shown.spec);
  });

  it("shows the API's refusal", async () => {
    const user = userEvent.setup();
    stubApi({
      "POST /api/v1/experiments": () =>
        json(422, {
          detail: [
            {
              loc: ["body", "load", "headers", "Authorization"],
              msg: "'***' is a secret as answers show it",
              type: "value_error",
            },
          ],
        }),
    });
    renderAt(<RunAgainButton experiment={answered()} onQueued={() => {}} />);
    await user.click(screen.getByRole("button", { name: "Run again" }));
    expect((await screen.findByRole("alert")).textContent).toContain("Could not run it again");
  });

  it("is not offered before the experiment has ended", () => {
    renderAt(
      <RunAgainButton experiment={{ ...answered(), status: "running" }} onQueued={() => {}} />,
    );
    expect(screen.queryByRole("button", { name: "Run again" })).toBeNull();
  });
});
