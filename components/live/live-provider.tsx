"use client";

import { useRouter } from "next/navigation";
import { createContext, useContext, useState, type ReactNode } from "react";

import { browserDeps, LiveClient } from "./live-client";

const LiveContext = createContext<LiveClient | null>(null);

/** Provides the page's one shared `/ws/live` connection (opened lazily on the first subscription). */
export function LiveProvider({ children }: { children: ReactNode }) {
  const router = useRouter();
  // The constructor touches no browser API, so creating it during the server render is harmless;
  // the socket itself is opened from the subscription effect in useLiveTopics. When the server
  // ends the socket because the session ended (signed out elsewhere, disabled), go to sign-in and
  // come back here afterwards.
  const [client] = useState(
    () =>
      new LiveClient(
        typeof window === "undefined"
          ? serverDeps
          : browserDeps(() =>
              router.replace(
                `/sign-in?next=${encodeURIComponent(window.location.pathname + window.location.search)}`,
              ),
            ),
      ),
  );
  return <LiveContext.Provider value={client}>{children}</LiveContext.Provider>;
}

/** The shared live client. @throws Error outside <LiveProvider>. */
export function useLiveClient(): LiveClient {
  const client = useContext(LiveContext);
  if (!client) throw new Error("useLiveClient must be used inside <LiveProvider>");
  return client;
}

const serverDeps = {
  url: () => "",
  createSocket: () => {
    throw new Error("no live socket during server rendering");
  },
  setTimer: () => null,
  clearTimer: () => undefined,
  random: () => 0,
  minDelayMs: 500,
  maxDelayMs: 15_000,
  idleCloseMs: 5_000,
};
