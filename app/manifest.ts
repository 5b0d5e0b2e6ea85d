import type { MetadataRoute } from "next";

/**
 * The web app manifest (/manifest.webmanifest): Pitwall installs as an app (a phone's home
 * screen, a desktop window) so Web Push notifications of the inbox reach it (docs/notifications.md).
 */
export default function manifest(): MetadataRoute.Manifest {
  return {
    id: "/",
    name: "Pitwall",
    short_name: "Pitwall",
    description:
      "Live dashboard for LLM infrastructure work: benchmarks, pipelines, agent sessions.",
    start_url: "/",
    scope: "/",
    display: "standalone",
    background_color: "#0d0f13",
    theme_color: "#1d4ed8",
    icons: [
      { src: "/icons/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
      { src: "/icons/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
      {
        src: "/icons/icon-maskable-512.png",
        sizes: "512x512",
        type: "image/png",
        purpose: "maskable",
      },
    ],
    shortcuts: [{ name: "Inbox", url: "/inbox", description: "What agents wait on" }],
  };
}
