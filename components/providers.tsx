"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { LiveProvider } from "./live/live-provider";
import { ServerNowContext } from "./live/use-now";

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

/** Client-side app context: react-query, the shared live socket and the hydration clock. */
export function Providers({ children, serverNow }: { children: ReactNode; serverNow: number }) {
  const [queryClient] = useState(makeQueryClient);
  return (
    <ServerNowContext.Provider value={serverNow}>
      <QueryClientProvider client={queryClient}>
        <LiveProvider>{children}</LiveProvider>
      </QueryClientProvider>
    </ServerNowContext.Provider>
  );
}
