"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";

import type { Preferences } from "@/lib/preferences";

import { LiveProvider } from "./live/live-provider";
import { ServerNowContext } from "./live/use-now";
import { PreferencesProvider } from "./preferences/preferences-provider";

function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // Pages arrive with server-loaded initialData and live invalidation keeps them fresh,
        // so there is no reason to refetch on mount or focus.
        staleTime: 60_000,
        refetchOnWindowFocus: false,
        retry: 2,
      },
    },
  });
}

/** Client-side app context: react-query, the shared live socket, the hydration clock and the person's display choices. */
export function Providers({
  children,
  serverNow,
  preferences,
  canSavePreferences,
}: {
  children: ReactNode;
  serverNow: number;
  preferences: Preferences;
  canSavePreferences: boolean;
}) {
  const [queryClient] = useState(makeQueryClient);
  return (
    <ServerNowContext.Provider value={serverNow}>
      <QueryClientProvider client={queryClient}>
        <PreferencesProvider initial={preferences} canSave={canSavePreferences}>
          <LiveProvider>{children}</LiveProvider>
        </PreferencesProvider>
      </QueryClientProvider>
    </ServerNowContext.Provider>
  );
}
