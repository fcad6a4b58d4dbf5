import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { json } from "../test/render";
import { authSnapshot, resetAuth, setToken } from "./auth";
import { CLOSED, CONNECTING, type EventStream, OPEN, openEventStream } from "./eventStream";

const TOKEN = "sse-token-0123456789abcdef";
const PATH = "/api/v1/experiments/e1/events";

/** A text/event-stream answer sending `chunks` as they are split here, then ending. */
function sse(chunks: string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
}

/** Stubs fetch with one answer per call (the last one repeats); returns the requests. */
function answers(...responses: (() => Response | Promise<Response>)[]) {
  const requests: { url: string; headers: Headers }[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: URL | string, init?: RequestInit) => {
      requests.push({ url: String(url), headers: new Headers(init?.headers) });
      const answer = responses[Math.min(requests.length - 1, responses.length - 1)];
      return answer();
    }),
  );
  return requests;
}

let stream: EventStream | undefined;

beforeEach(() => {
  sessionStorage.clear();
  resetAuth();
});
afterEach(() => {
  stream?.close();
  stream = undefined;
  vi.unstubAllGlobals();
});

function listen(source: EventStream, type: string) {
  const received: string[] = [];
  source.addEventListener(type, (event) => received.push(event.data));
  return received;
}

describe("openEventStream", () => {
  it("sends the token and reads events however the chunks split them", async () => {
    setToken(TOKEN);
    const requests = answers(() =>
      sse([
        ": keep-alive\n\n",
        'event: progress\ndata: {"phase":',
        '"warmup"}\n\n',
        "event: progress\r\ndata: two\r",
        "\ndata: lines\r\n\r\n",
        "data: unnamed\n\n",
      ]),
    );
    stream = openEventStream(PATH, { retryMs: 60_000 });
    const opened = vi.fn();
    stream.onopen = opened;
    const progress = listen(stream, "progress");
    const messages = listen(stream, "message");
    await vi.waitFor(() => expect(messages).toEqual(["unnamed"]));
    expect(progress).toEqual(['{"phase":"warmup"}', "two\nlines"]);
    expect(opened).toHaveBeenCalledOnce();
    expect(new URL(requests[0].url).pathname).toBe(PATH);
    expect(requests[0].headers.get("Authorization")).toBe(`Bearer ${TOKEN}`);
    expect(requests[0].headers.get("Accept")).toBe("text/event-stream");
  });

  it("sends no Authorization header without a token", async () => {
    const requests = answers(() => sse(["data: x\n\n"]));
    stream = openEventStream(PATH, { retryMs: 60_000 });
    const messages = listen(stream, "message");
    await vi.waitFor(() => expect(messages).toEqual(["x"]));
    expect(requests[0].headers.has("Authorization")).toBe(false);
  });

  it("stops on a 401 and asks for the token, without retrying", async () => {
    const requests = answers(() => json(401, { detail: "This TraceTax requires an API token" }));
    stream = openEventStream(PATH, { retryMs: 1 });
    const states: number[] = [];
    const source = stream;
    source.onerror = () => states.push(source.readyState);
    await vi.waitFor(() => expect(states).toEqual([CLOSED]));
    expect(authSnapshot()).toMatchObject({
      required: true,
      message: "This TraceTax requires an API token",
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(requests).toHaveLength(1);
  });

  it("fails on another error answer, as EventSource does", async () => {
    answers(() => json(404, { detail: "no experiment e1" }));
    stream = openEventStream(PATH, { retryMs: 1 });
    const source = stream;
    const states: number[] = [];
    source.onerror = () => states.push(source.readyState);
    await vi.waitFor(() => expect(states).toEqual([CLOSED]));
    expect(authSnapshot().required).toBe(false);
  });

  it("reconnects after the stream ends early, with the last event id", async () => {
    const requests = answers(
      () => sse(["id: 7\nevent: progress\ndata: first\n\n"]),
      () => sse(["event: progress\ndata: second\n\n"]),
    );
    stream = openEventStream(PATH, { retryMs: 1 });
    const source = stream;
    const states: number[] = [];
    source.onerror = () => states.push(source.readyState);
    const progress = listen(source, "progress");
    // (the second answer repeats: each ends, and the stream connects again)
    await vi.waitFor(() => expect(progress.slice(0, 2)).toEqual(["first", "second"]));
    expect(states[0]).toBe(CONNECTING);
    expect(requests[0].headers.has("Last-Event-ID")).toBe(false);
    expect(requests[1].headers.get("Last-Event-ID")).toBe("7");
  });

  it("retries after a network error", async () => {
    let calls = 0;
    answers(async () => {
      calls += 1;
      if (calls === 1) throw new TypeError("Failed to fetch");
      return sse(["data: back\n\n"]);
    });
    stream = openEventStream(PATH, { retryMs: 1 });
    const messages = listen(stream, "message");
    await vi.waitFor(() => expect(messages[0]).toBe("back"));
  });

  it("never reconnects once closed, even from a listener", async () => {
    const requests = answers(() => sse(["event: progress\ndata: finished\n\ndata: after\n\n"]));
    stream = openEventStream(PATH, { retryMs: 1 });
    const source = stream;
    const after = listen(source, "message");
    source.addEventListener("progress", () => source.close());
    await vi.waitFor(() => expect(source.readyState).toBe(CLOSED));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(requests).toHaveLength(1);
    expect(after).toEqual([]);
  });

  it("is open while it reads", async () => {
    let finish: () => void = () => {};
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("data: hello\n\n"));
        finish = () => controller.close();
      },
    });
    answers(() => new Response(body, { headers: { "Content-Type": "text/event-stream" } }));
    stream = openEventStream(PATH, { retryMs: 60_000 });
    const messages = listen(stream, "message");
    await vi.waitFor(() => expect(messages).toEqual(["hello"]));
    expect(stream.readyState).toBe(OPEN);
    finish();
  });
});
