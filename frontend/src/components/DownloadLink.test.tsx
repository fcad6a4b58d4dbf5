import { cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { resetAuth, setToken } from "../api/auth";
import { json, stubApi } from "../test/render";
import { DownloadLink } from "./DownloadLink";

const TOKEN = "download-token-0123456789abcdef";
const XML = '<?xml version="1.0"?><testsuites tests="2"/>';

/** The object URLs made and every programmatic click on a link to one (the save). */
function watchSaves() {
  const blobs: Blob[] = [];
  const saved: { href: string; download: string }[] = [];
  // jsdom has no object URLs: these stand in for the browser's.
  Object.assign(URL, {
    createObjectURL: vi.fn((blob: Blob) => {
      blobs.push(blob);
      return `blob:http://localhost/${blobs.length}`;
    }),
    revokeObjectURL: vi.fn(),
  });
  vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (
    this: HTMLAnchorElement,
  ) {
    if (this.href.startsWith("blob:")) saved.push({ href: this.href, download: this.download });
  });
  return { blobs, saved };
}

/** A backend whose JUnit answer wants TOKEN. */
function guardedJunit() {
  const sent: (string | null)[] = [];
  stubApi({
    "GET /api/v1/checks/c1": (request: Request) => {
      sent.push(request.headers.get("Authorization"));
      if (request.headers.get("Authorization") !== `Bearer ${TOKEN}`) {
        return json(401, { detail: "This TraceTax requires an API token for this request" });
      }
      return new Response(XML, { status: 200, headers: { "Content-Type": "application/xml" } });
    },
  });
  return sent;
}

function renderLink() {
  render(
    <DownloadLink href="/api/v1/checks/c1?format=junit" filename="check-junit.xml">
      Download JUnit XML
    </DownloadLink>,
  );
  return screen.getByRole("link", { name: "Download JUnit XML" });
}

beforeEach(() => {
  sessionStorage.clear();
  resetAuth();
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe("DownloadLink", () => {
  it("fetches the file with the token and saves it under its name", async () => {
    const { blobs, saved } = watchSaves();
    const sent = guardedJunit();
    setToken(TOKEN);
    const link = renderLink();
    expect(link.getAttribute("href")).toBe("/api/v1/checks/c1?format=junit");
    expect(link.getAttribute("download")).toBe("check-junit.xml");
    await userEvent.setup().click(link);
    await vi.waitFor(() => expect(saved).toHaveLength(1));
    expect(sent).toEqual([`Bearer ${TOKEN}`]);
    expect(saved[0]).toEqual({ href: "blob:http://localhost/1", download: "check-junit.xml" });
    expect(await blobs[0]?.text()).toBe(XML);
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("saves nothing and shows the API's sentence when refused", async () => {
    const { saved } = watchSaves();
    guardedJunit();
    const link = renderLink();
    await userEvent.setup().click(link);
    expect((await screen.findByRole("alert")).textContent).toBe(
      "Could not download check-junit.xml: This TraceTax requires an API token for this request",
    );
    expect(saved).toEqual([]);
  });
});
