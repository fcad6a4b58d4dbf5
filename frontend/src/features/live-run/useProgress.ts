import { useEffect, useRef, useState } from "react";
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
 * `finished` event; the browser reconnects by itself after a network error, and the backend
 * answers a reconnect with its latest event.
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

  useEffect(() => {
    if (!enabled || typeof EventSource === "undefined") return;
    setStream("connecting");
    const source = new EventSource(`/api/v1/experiments/${encodeURIComponent(id)}/events`);
    source.onopen = () => setStream("open");
    source.onerror = () => {
      setStream(source.readyState === EventSource.CLOSED ? "failed" : "reconnecting");
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
  }, [id, enabled]);

  return { event: received.event, receivedAt: received.at, stream };
}
