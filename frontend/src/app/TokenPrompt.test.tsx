import { QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { resetAuth } from "../api/auth";
import { json, stubApi, testQueryClient } from "../test/render";
import { routes } from "./routes";

const TOKEN = "prompt-token-0123456789abcdef";

beforeEach(() => {
  sessionStorage.clear();
  resetAuth();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** The calibrations page behind a backend that wants TOKEN. */
function renderGuarded() {
  const calls = stubApi({
    "GET /api/v1/calibrations": (request: Request) => {
      const header = request.headers.get("Authorization");
      if (header === `Bearer ${TOKEN}`) return json(200, []);
      return json(401, {
        detail: header
          ? "The API token was refused: send the value of TRACETAX_API_TOKEN the backend runs with"
          : "This TraceTax requires an API token: send `Authorization: Bearer <token>`",
      });
    },
  });
  const router = createMemoryRouter(routes, { initialEntries: ["/calibrations"] });
  render(
    <QueryClientProvider client={testQueryClient()}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return calls;
}

describe("TokenPrompt", () => {
  it("is not shown while the API answers", async () => {
    stubApi({ "GET /api/v1/calibrations": [] });
    const router = createMemoryRouter(routes, { initialEntries: ["/calibrations"] });
    render(
      <QueryClientProvider client={testQueryClient()}>
        <RouterProvider router={router} />
      </QueryClientProvider>,
    );
    expect(await screen.findByText(/No calibrations yet/)).toBeTruthy();
    expect(screen.queryByLabelText("API token")).toBeNull();
  });

  it("asks for the token on a 401, then loads the page with it", async () => {
    const user = userEvent.setup();
    const calls = renderGuarded();
    expect(
      await screen.findByRole("heading", { name: "This TraceTax requires an API token" }),
    ).toBeTruthy();
    // The page itself shows the API's sentence where its data would be.
    expect((await screen.findByRole("alert")).textContent).toContain(
      "send `Authorization: Bearer <token>`",
    );

    await user.type(screen.getByLabelText("API token"), TOKEN);
    await user.click(screen.getByRole("button", { name: "Use this token" }));

    expect(await screen.findByText(/No calibrations yet/)).toBeTruthy();
    expect(screen.queryByLabelText("API token")).toBeNull();
    expect(sessionStorage.getItem("tracetax.apiToken")).toBe(TOKEN);
    expect(calls.at(-1)?.url.pathname).toBe("/api/v1/calibrations");
  });

  it("says when the token was refused, and asks again", async () => {
    const user = userEvent.setup();
    renderGuarded();
    await user.type(await screen.findByLabelText("API token"), "wrong-token-0123456789");
    await user.click(screen.getByRole("button", { name: "Use this token" }));
    expect(await screen.findByRole("heading", { name: "The API token was refused" })).toBeTruthy();
    expect(screen.getByText(/did not accept it/)).toBeTruthy();
    expect(sessionStorage.getItem("tracetax.apiToken")).toBeNull();
    expect((screen.getByLabelText("API token") as HTMLInputElement).value).toBe("");
  });

  it("keeps the token out of sight", async () => {
    renderGuarded();
    const input = (await screen.findByLabelText("API token")) as HTMLInputElement;
    expect(input.type).toBe("password");
    expect(input.autocomplete).toBe("off");
  });
});
