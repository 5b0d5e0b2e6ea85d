"use client";

import { useEffect } from "react";

/**
 * Registers /sw.js (public/sw.js) on every page, so Pitwall is installable and a notification's
 * Approve / Deny work with no tab open. Renders nothing; a browser without service workers (or a
 * failed registration) just has no notifications.
 */
export function RegisterServiceWorker() {
  // Syncs with the browser's service worker registry, outside React.
  useEffect(() => {
    if (!("serviceWorker" in navigator)) return;
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => undefined);
  }, []);
  return null;
}
