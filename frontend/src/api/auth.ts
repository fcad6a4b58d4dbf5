// The API token (TRACETAX_API_TOKEN, or the one the backend generated): kept in sessionStorage,
// so it lasts for this tab and is gone when the tab closes, and sent as `Authorization: Bearer`
// by the one API client (client.ts) and the event stream (eventStream.ts). The link `make up`
// prints carries it as `?token=`, taken from the address on load (and removed from it, so it
// does not stay in the history or get shared with a copied URL). Nothing asks for it up front:
// the first 401 marks it required, and the token prompt (app/TokenPrompt.tsx) shows.

import { useSyncExternalStore } from "react";

const STORAGE_KEY = "tracetax.apiToken";
const ADDRESS_PARAMETER = "token";

export interface AuthState {
  token: string | null;
  /** A request was answered 401: the prompt is shown until a token is entered. */
  required: boolean;
  /** The API's sentence for that 401. */
  message: string | null;
  /** Whether the 401 refused a token that was sent (rather than asking for one). */
  refused: boolean;
  /** Grows with every new token, so streams opened with an older one reconnect. */
  version: number;
}

let state: AuthState = {
  token: takeTokenFromAddress() ?? readStored(),
  required: false,
  message: null,
  refused: false,
  version: 0,
};
const listeners = new Set<() => void>();

function readStored(): string | null {
  try {
    return globalThis.sessionStorage?.getItem(STORAGE_KEY) || null;
  } catch {
    return null; // storage disabled: the token lives in memory for this page
  }
}

/**
 * The token in the page's address (`/?token=...` on any path), stored like an entered one and
 * removed from the address bar; null when the address has none.
 */
export function takeTokenFromAddress(): string | null {
  const location = globalThis.location;
  if (!location?.search) return null;
  const url = new URL(location.href);
  const token = url.searchParams.get(ADDRESS_PARAMETER)?.trim();
  if (!url.searchParams.has(ADDRESS_PARAMETER)) return null;
  url.searchParams.delete(ADDRESS_PARAMETER);
  try {
    globalThis.history?.replaceState(
      globalThis.history.state,
      "",
      url.pathname + url.search + url.hash,
    );
  } catch {
    // no history (not a browser page): the token is still used
  }
  if (!token) return null;
  store(token);
  return token;
}

function store(token: string | null) {
  try {
    if (token) globalThis.sessionStorage?.setItem(STORAGE_KEY, token);
    else globalThis.sessionStorage?.removeItem(STORAGE_KEY);
  } catch {
    // as above
  }
}

function update(next: Partial<AuthState>) {
  state = { ...state, ...next };
  for (const listener of listeners) listener();
}

export function currentToken(): string | null {
  return state.token;
}

/** `headers` with the token's Authorization header, when there is a token. */
export function withToken(headers: Headers, token = state.token): Headers {
  if (token) headers.set("Authorization", `Bearer ${token}`);
  return headers;
}

/** Use `token` from now on (the prompt's submit). */
export function setToken(token: string) {
  const trimmed = token.trim();
  store(trimmed || null);
  update({
    token: trimmed || null,
    required: false,
    message: null,
    refused: false,
    version: state.version + 1,
  });
}

/**
 * A request sent with `sentToken` was answered 401. A refused token is forgotten. An answer to
 * a request sent before the current token was entered says nothing about that token.
 */
export function noteUnauthorized(message: string, sentToken: string | null) {
  if (sentToken !== state.token) return;
  if (sentToken) store(null);
  update({ token: null, required: true, message, refused: sentToken !== null });
}

export function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The current state (what useAuth renders from). */
export function authSnapshot(): AuthState {
  return state;
}

export function useAuth(): AuthState {
  return useSyncExternalStore(subscribe, authSnapshot);
}

/** For tests: back to a fresh page's state, reading the address and sessionStorage again. */
export function resetAuth() {
  state = {
    token: takeTokenFromAddress() ?? readStored(),
    required: false,
    message: null,
    refused: false,
    version: 0,
  };
  for (const listener of listeners) listener();
}
