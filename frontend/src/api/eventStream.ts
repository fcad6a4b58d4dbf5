// Server-sent events read with fetch, so the stream carries the API token like every other
// request. The browser's EventSource cannot send an Authorization header; the alternatives,
// a token in the URL (kept in proxy and Ingress access logs) or a ticket route minted for it,
// would put a secret where logs keep it or add an API for one screen. The parsing and the
// reconnecting (with Last-Event-ID, and the server's `retry:`) are @microsoft/fetch-event-source's;
// this wraps it in the small part of EventSource the UI uses.
// Unlike EventSource it stops on a 401 and tells the token prompt (auth.ts); the live view
// opens a new stream once a token is entered.

import { fetchEventSource } from "@microsoft/fetch-event-source";
import { currentToken, noteUnauthorized, withToken } from "./auth";
import { responseDetail } from "./client";

export const CONNECTING = 0;
export const OPEN = 1;
export const CLOSED = 2;

/** What the live view uses of an EventSource (tests stand in a fake with the same shape). */
export interface EventStream {
  readonly url: string;
  readonly readyState: number;
  onopen: (() => void) | null;
  /** A lost connection (readyState CONNECTING: it retries) or a refused one (CLOSED). */
  onerror: (() => void) | null;
  addEventListener(type: string, listener: (event: MessageEvent<string>) => void): void;
  close(): void;
}

export interface EventStreamOptions {
  /** Wait before reconnecting, until the server sends `retry:` (EventSource's usual 3 s). */
  retryMs?: number;
}

export function openEventStream(path: string, options: EventStreamOptions = {}): EventStream {
  return new FetchEventStream(path, options.retryMs ?? 3000);
}

/** An answer that is not a stream (a 4xx/5xx, or no body): no retry, as EventSource does. */
class Refused extends Error {}

/** The stream ended while still wanted: connect again (the library retries on a throw). */
class EndedEarly extends Error {}

class FetchEventStream implements EventStream {
  readyState = CONNECTING;
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  private listeners = new Map<string, ((event: MessageEvent<string>) => void)[]>();
  private abort = new AbortController();
  // The token the latest request carried: a 401 is about that one, not one entered since.
  private sent = currentToken();

  constructor(
    readonly url: string,
    private retryMs: number,
  ) {
    const base = globalThis.location?.origin ?? "http://127.0.0.1:8000";
    fetchEventSource(new URL(url, base).toString(), {
      cache: "no-store",
      signal: this.abort.signal,
      // The live view keeps following a run from a background tab, as EventSource does.
      openWhenHidden: true,
      fetch: (input, init) => this.fetchWithToken(input, init),
      onopen: (response) => this.opened(response),
      onmessage: (message) => this.dispatch(message),
      onclose: () => {
        if (this.readyState !== CLOSED) throw new EndedEarly();
      },
      onerror: (error: unknown) => this.failed(error),
    }).catch(() => {
      // Refused: already reported through onerror.
    });
  }

  addEventListener(type: string, listener: (event: MessageEvent<string>) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  close() {
    this.readyState = CLOSED;
    this.abort.abort();
  }

  /** Each (re)connection reads the token afresh, so one entered meanwhile is sent. */
  private fetchWithToken(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    this.sent = currentToken();
    const headers = withToken(new Headers(init?.headers), this.sent);
    headers.set("Accept", "text/event-stream");
    return globalThis.fetch(input, { ...init, headers });
  }

  private async opened(response: Response) {
    if (!response.ok || !response.body) {
      if (response.status === 401) noteUnauthorized(await responseDetail(response), this.sent);
      throw new Refused(`HTTP ${response.status}`);
    }
    if (this.readyState === CLOSED) return;
    this.readyState = OPEN;
    this.onopen?.();
  }

  private dispatch(message: { event: string; data: string; retry?: number }) {
    if (message.retry !== undefined) this.retryMs = message.retry;
    // An event without data (a keep-alive's blank line) is not dispatched, as EventSource does.
    if (message.data === "" || this.readyState === CLOSED) return;
    const type = message.event || "message";
    const event = new MessageEvent(type, { data: message.data });
    for (const listener of this.listeners.get(type) ?? []) {
      if (this.readyState === CLOSED) return; // a listener closed the stream
      listener(event);
    }
  }

  /** Returns the wait before the next attempt, or throws to stop (the library's contract). */
  private failed(error: unknown): number {
    if (this.readyState === CLOSED) throw error;
    if (error instanceof Refused) {
      this.readyState = CLOSED;
      this.onerror?.();
      throw error;
    }
    this.readyState = CONNECTING;
    this.onerror?.();
    return this.retryMs;
  }
}
