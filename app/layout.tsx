import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";

import { TopNav } from "@/components/nav/top-nav";
import { Providers } from "@/components/providers";
import { RegisterServiceWorker } from "@/components/pwa/register-service-worker";
import { currentPreferences } from "@/lib/server/auth/preferences-page";

import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Pitwall", template: "%s · Pitwall" },
  description: "Live dashboard for LLM infrastructure work: benchmarks, pipelines, agent sessions.",
};

export const viewport: Viewport = {
  colorScheme: "light dark",
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#f6f7f9" },
    { media: "(prefers-color-scheme: dark)", color: "#0d0f13" },
  ],
};

/**
 * Wall-clock time of this server render. Server components render once per request, so reading
 * the clock here is deterministic for the response; it seeds relative times during hydration.
 */
function renderTime(): number {
  return Date.now();
}

/**
 * Root layout: system fonts, the person's theme (system / light / dark) rendered on <html> so the
 * first paint is right, top navigation, client providers.
 */
export default async function RootLayout({ children }: { children: ReactNode }) {
  const { preferences, canSave } = await currentPreferences();
  return (
    <html lang="en" data-theme={preferences.theme}>
      <body className="min-h-screen bg-background font-sans text-foreground antialiased">
        <a
          href="#main"
          className="sr-only rounded-md bg-card px-3 py-2 text-sm font-medium shadow-md focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50"
        >
          Skip to content
        </a>
        <Providers serverNow={renderTime()} preferences={preferences} canSavePreferences={canSave}>
          <TopNav />
          <RegisterServiceWorker />
          <main
            id="main"
            tabIndex={-1}
            className="mx-auto w-full max-w-[2200px] px-4 py-5 outline-none lg:px-6"
          >
            {children}
          </main>
        </Providers>
      </body>
    </html>
  );
}
