import type { CSSProperties } from "react";

/**
 * The dark palette of app/globals.css, applied inline to the wall view so it is dark whatever
 * the system preference (a TV in a bright room still gets the dark wall). Keep in sync with the
 * `prefers-color-scheme: dark` block there.
 */
export const WALL_THEME = {
  colorScheme: "dark",
  "--background": "#0d0f13",
  "--foreground": "#e6e8eb",
  "--card": "#14171c",
  "--muted": "#1c2027",
  "--muted-fg": "#9aa2ad",
  "--border": "#272c34",
  "--input": "#363c46",
  "--ring": "#60a5fa",
  "--primary": "#2563eb",
  "--primary-fg": "#ffffff",
  "--link": "#7cb0ff",
  "--status-running": "#7cb0ff",
  "--status-running-bg": "#15254a",
  "--status-succeeded": "#4ade80",
  "--status-succeeded-bg": "#0f2e1c",
  "--status-failed": "#f87171",
  "--status-failed-bg": "#3a1414",
  "--status-stale": "#fbbf24",
  "--status-stale-bg": "#36270a",
  "--status-neutral": "#a3abb6",
  "--status-neutral-bg": "#1f242b",
  "--chart-1": "#60a5fa",
  "--chart-2": "#fb923c",
  "--chart-3": "#a78bfa",
  "--chart-4": "#2dd4bf",
  "--chart-5": "#f472b6",
  "--chart-6": "#facc15",
  "--chart-7": "#94a3b8",
  "--chart-8": "#a3e635",
  "--chart-grid": "#222730",
  "--chart-axis": "#9aa2ad",
} as CSSProperties;
