// The backend's API token, as the UI and the CLI get it: TRACETAX_API_TOKEN when the backend was
// given one, else the token it generated into its state directory (TRACETAX_API_TOKEN_FILE,
// default <state dir>/api-token; the same file `make up`'s login link carries). Every request
// that starts or changes anything needs it; reads too when the backend has an operator's token.

import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

function stateDir() {
  if (process.env.TRACETAX_STATE_DIR) return path.resolve(process.env.TRACETAX_STATE_DIR);
  const base = process.env.XDG_STATE_HOME ?? path.join(os.homedir(), ".local", "state");
  return path.join(base, "tracetax");
}

export function tokenFile() {
  return process.env.TRACETAX_API_TOKEN_FILE || path.join(stateDir(), "api-token");
}

function readToken() {
  const configured = process.env.TRACETAX_API_TOKEN?.trim();
  if (configured) return configured;
  try {
    return readFileSync(tokenFile(), "utf8").trim() || null;
  } catch {
    return null;
  }
}

export const TOKEN = readToken();

/** The Authorization header the tests' own API requests send (none without a token). */
export function authorizationHeader() {
  return TOKEN ? { Authorization: `Bearer ${TOKEN}` } : {};
}

/** Where the token came from, or that there is none (said once, before the tests). */
export function tokenSource() {
  if (process.env.TRACETAX_API_TOKEN?.trim()) return "TRACETAX_API_TOKEN";
  if (TOKEN) return tokenFile();
  return `no API token (TRACETAX_API_TOKEN unset, ${tokenFile()} missing): requests that need one will be refused`;
}

/** `url` as the link `make up` prints it: with `?token=` (kept beside its own query). */
export function loginUrl(url) {
  if (!TOKEN) return url;
  const withToken = new URL(url);
  withToken.searchParams.set("token", TOKEN);
  return withToken.toString();
}
