import { useEffect, useRef, useState } from "react";
import { useAuth } from "../../api/auth";
import { CLOSED, openEventStream } from "../../api/eventStream";
import type { ProgressEvent } from "../../api/types";

export type StreamState = "connecting" | "open" | "reconnecting" | "closed" | "failed";

export interface ProgressStream {
  event: ProgressEvent | null;
  /** When `event` arrived (performance.now()). */
  receivedAt: number;
  stream: StreamState;
}

/**
 * Follows GET /api/v1/experiments/{id}/events (server-sent `progress` events) until the
 * `finished` event; the stream reconnects by itself after a network error, and the backend
 * answers a reconnect with its latest event. Read with fetch so it carries the API token
 * (api/eventStream.ts, on @microsoft/fetch-event-source); a new token opens a new stream.
 */
export function useProgress(
  id: string,
  enabled: boolean,
  callbacks: { onEvent?: (event: ProgressEvent) => void; onFinished?: () => void } = {},
): ProgressStream {
  const [received, setReceived] = useState<{ event: ProgressEvent | null; at: number }>({
    event: null,
    at: 0,
  });
  const [stream, setStream] = useState<StreamState>("connecting");
  const latest = useRef(callbacks);
  latest.current = callbacks;
  const { version: tokenVersion } = useAuth();

  // biome-ignore lint/correctness/useExhaustiveDependencies: tokenVersion is the trigger: a new token (entered after a 401) reopens the stream, which reads it from auth.ts
  useEffect(() => {
    if (!enabled || typeof fetch === "undefined") return;
    setStream("connecting");
    const source = openEventStream(`/api/v1/experiments/${encodeURIComponent(id)}/events`);
    source.onopen = () => setStream("open");
    source.onerror = () => {
      setStream(source.readyState === CLOSED ? "failed" : "reconnecting");
    };
    source.addEventListener("progress", (message) => {
      let data: ProgressEvent;
      try {
        data = JSON.parse((message as MessageEvent<string>).data) as ProgressEvent;
      } catch {
        return;
      }
      setReceived({ event: data, at: performance.now() });
      latest.current.onEvent?.(data);
      if (data.phase === "finished") {
        source.close();
        setStream("closed");
        latest.current.onFinished?.();
      }
    });
    return () => source.close();
  }, [id, enabled, tokenVersion]);

  return { event: received.event, receivedAt: received.at, stream };
}
