"use client";

import { useSyncExternalStore } from "react";

import { useLiveClient } from "@/components/live/live-provider";
import { FALLBACK_POLL_MS } from "@/components/live/use-live-topics";

/** Connection state of the live socket: "Live", "Connecting…", or "Reconnecting · polling every 5 s". */
export function LiveIndicator() {
  const client = useLiveClient();
  const status = useSyncExternalStore(client.onStatus, client.getStatus, () => "idle" as const);
  if (status === "idle") return null;
  const [dot, text, title] =
    status === "open"
      ? ["bg-succeeded", "Live", "Connected: pages update as workers push data"]
      : status === "connecting"
        ? ["bg-neutral", "Connecting…", "Opening the live connection"]
        : [
            "bg-stale",
            `Reconnecting · polling every ${FALLBACK_POLL_MS / 1000} s`,
            "Live connection lost; data is refreshed by polling until it is back",
          ];
  return (
    <span className="flex items-center gap-2 text-xs text-muted-fg" title={title} role="status">
      <span aria-hidden className={`size-2 rounded-full ${dot}`} />
      <span className="max-sm:sr-only">{text}</span>
    </span>
  );
}
