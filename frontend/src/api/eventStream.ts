// Server-sent events read with fetch, so the stream carries the API token like every other
// request. The browser's EventSource cannot send an Authorization header; the alternatives,
// a token in the URL (kept in proxy and Ingress access logs) or a ticket route minted for it,
// would put a secret where logs keep it or add an API for one screen. This is the small part
// of EventSource the UI uses: `event:`/`data:`/`id:`/`retry:` fields, comments, and
// reconnecting (with Last-Event-ID) after a network error or a stream that ends early.
// Unlike EventSource it stops on a 401 and tells the token prompt (auth.ts); the live view
// opens a new stream once a token is entered.

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

class FetchEventStream implements EventStream {
  readyState = CONNECTING;
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  private listeners = new Map<string, ((event: MessageEvent<string>) => void)[]>();
  private abort = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastEventId = "";
  // The event being read: its fields until the blank line that dispatches it.
  private type = "";
  private data: string[] = [];
  private rest = "";

  constructor(
    readonly url: string,
    private retryMs: number,
  ) {
    void this.connect();
  }

  addEventListener(type: string, listener: (event: MessageEvent<string>) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  close() {
    this.readyState = CLOSED;
    clearTimeout(this.timer);
    this.abort.abort();
  }

  private async connect() {
    const sent = currentToken();
    const headers = withToken(new Headers({ Accept: "text/event-stream" }), sent);
    if (this.lastEventId) headers.set("Last-Event-ID", this.lastEventId);
    const base = globalThis.location?.origin ?? "http://127.0.0.1:8000";
    let response: Response;
    try {
      response = await globalThis.fetch(new URL(this.url, base), {
        headers,
        cache: "no-store",
        signal: this.abort.signal,
      });
    } catch {
      this.retry();
      return;
    }
    if (this.readyState === CLOSED) return;
    if (!response.ok || !response.body) {
      if (response.status === 401) noteUnauthorized(await responseDetail(response), sent);
      this.fail();
      return;
    }
    this.readyState = OPEN;
    this.onopen?.();
    await this.read(response.body);
  }

  private async read(body: ReadableStream<Uint8Array>) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    this.rest = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      // The connection broke mid-stream, or close() aborted it.
    }
    this.retry();
  }

  /** Dispatches every complete event in `chunk` (lines end in \n, \r\n or \r). */
  private feed(chunk: string) {
    let text = this.rest + chunk;
    // A trailing \r may be the first half of \r\n: keep it for the next chunk.
    const held = text.endsWith("\r") ? "\r" : "";
    if (held) text = text.slice(0, -1);
    const lines = text.split(/\r\n|\r|\n/);
    this.rest = (lines.pop() ?? "") + held;
    for (const line of lines) this.line(line);
  }

  private line(line: string) {
    if (line === "") {
      this.dispatch();
      return;
    }
    if (line.startsWith(":")) return; // a comment: the server's keep-alive
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.type = value;
    else if (field === "data") this.data.push(value);
    else if (field === "id" && !value.includes("\0")) this.lastEventId = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.retryMs = Number(value);
  }

  private dispatch() {
    const type = this.type || "message";
    const data = this.data;
    this.type = "";
    this.data = [];
    if (data.length === 0) return;
    const event = new MessageEvent(type, { data: data.join("\n"), lastEventId: this.lastEventId });
    for (const listener of this.listeners.get(type) ?? []) {
      if (this.readyState === CLOSED) return; // a listener closed the stream
      listener(event);
    }
  }

  /** The connection ended but the stream was not closed: connect again after a while. */
  private retry() {
    if (this.readyState === CLOSED) return;
    this.readyState = CONNECTING;
    this.type = "";
    this.data = [];
    this.onerror?.();
    this.timer = setTimeout(() => void this.connect(), this.retryMs);
  }

  /** Refused (a 4xx/5xx answer, or no body): no retry, as EventSource does. */
  private fail() {
    this.readyState = CLOSED;
    this.onerror?.();
  }
}
