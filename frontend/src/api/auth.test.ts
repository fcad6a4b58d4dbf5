import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { json, stubApi } from "../test/render";
import {
  authSnapshot,
  noteUnauthorized,
  resetAuth,
  setToken,
  subscribe,
  takeTokenFromAddress,
} from "./auth";
import { api, unwrap } from "./client";

const TOKEN = "ui-token-0123456789abcdef";
const ASKS = "This TraceTax requires an API token: send `Authorization: Bearer <token>`";

/** A stub API that wants `TOKEN`; returns the Authorization header of every request. */
function guardedApi() {
  const sent: (string | null)[] = [];
  stubApi({
    "GET /api/v1/presets": (request: Request) => {
      const header = request.headers.get("Authorization");
      sent.push(header);
      if (header === null) return json(401, { detail: ASKS });
      if (header !== `Bearer ${TOKEN}`) return json(401, { detail: "The API token was refused" });
      return json(200, [{ name: "none" }]);
    },
  });
  return sent;
}

beforeEach(() => {
  sessionStorage.clear();
  resetAuth();
});
afterEach(() => {
  vi.unstubAllGlobals();
  window.history.replaceState(null, "", "/");
});

describe("the API token", () => {
  it("is not sent, nor asked for, until the API answers 401", async () => {
    const sent = guardedApi();
    expect(authSnapshot().required).toBe(false);
    await expect(unwrap(api.GET("/api/v1/presets"))).rejects.toMatchObject({
      status: 401,
      message: ASKS,
    });
    expect(sent).toEqual([null]);
  });

  it("is asked for after a 401, with the API's sentence", async () => {
    const changed = vi.fn();
    const stop = subscribe(changed);
    guardedApi();
    await unwrap(api.GET("/api/v1/presets")).catch(() => {});
    stop();
    expect(changed).toHaveBeenCalled();
    expect(authSnapshot()).toMatchObject({ required: true, refused: false, message: ASKS });
  });

  it("is sent as a bearer token once entered, and kept for the tab", async () => {
    const sent = guardedApi();
    setToken(`  ${TOKEN} `);
    expect(sessionStorage.getItem("tracetax.apiToken")).toBe(TOKEN);
    await expect(unwrap(api.GET("/api/v1/presets"))).resolves.toEqual([{ name: "none" }]);
    expect(sent).toEqual([`Bearer ${TOKEN}`]);
    expect(authSnapshot().required).toBe(false);
  });

  it("is read from the tab's storage on load", async () => {
    sessionStorage.setItem("tracetax.apiToken", TOKEN);
    resetAuth();
    const sent = guardedApi();
    await unwrap(api.GET("/api/v1/presets"));
    expect(sent).toEqual([`Bearer ${TOKEN}`]);
  });

  it("is forgotten when refused, and asked for again", async () => {
    guardedApi();
    setToken("not-the-token-0123456789");
    await unwrap(api.GET("/api/v1/presets")).catch(() => {});
    expect(authSnapshot()).toMatchObject({
      required: true,
      refused: true,
      token: null,
      message: "The API token was refused",
    });
    expect(sessionStorage.getItem("tracetax.apiToken")).toBeNull();
  });

  it("is kept when a 401 answers a request sent before it was entered", () => {
    setToken(TOKEN);
    noteUnauthorized("late", null);
    noteUnauthorized("late", "an-older-token-0123456789");
    expect(authSnapshot()).toMatchObject({ required: false, token: TOKEN });
  });

  it("versions every new token, so live streams reopen with it", () => {
    const before = authSnapshot().version;
    setToken(TOKEN);
    setToken(`${TOKEN}2`);
    expect(authSnapshot().version).toBe(before + 2);
  });

  it("is taken from the link `make up` prints, on any path, and removed from the address", async () => {
    window.history.replaceState(null, "", `/experiments/abc?token=${TOKEN}&tab=results#rounds`);
    resetAuth(); // what loading the page does
    expect(authSnapshot().token).toBe(TOKEN);
    expect(sessionStorage.getItem("tracetax.apiToken")).toBe(TOKEN);
    expect(`${location.pathname}${location.search}${location.hash}`).toBe(
      "/experiments/abc?tab=results#rounds",
    );
    const sent = guardedApi();
    await unwrap(api.GET("/api/v1/presets"));
    expect(sent).toEqual([`Bearer ${TOKEN}`]);
  });

  it("wins over a stored one, and an address without it changes nothing", () => {
    sessionStorage.setItem("tracetax.apiToken", "an-older-token-0123456789");
    window.history.replaceState(null, "", `/?token=${TOKEN}`);
    resetAuth();
    expect(authSnapshot().token).toBe(TOKEN);
    expect(location.search).toBe("");
    window.history.replaceState(null, "", "/checks?status=failed");
    expect(takeTokenFromAddress()).toBeNull();
    expect(location.search).toBe("?status=failed");
    expect(sessionStorage.getItem("tracetax.apiToken")).toBe(TOKEN);
  });
});
