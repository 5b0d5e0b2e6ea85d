/* Pitwall's service worker (served as /sw.js, scope /): shows Web Push notifications of inbox
 * items and acts on their buttons without opening the app (docs/notifications.md).
 *
 * A push carries the JSON of lib/api/push.ts `PushPayload`, encrypted to this browser. Approve /
 * Deny post that button's one-use action token to /api/push/action with no cookies: the token
 * alone authenticates, so it works with the app closed and the session expired. A click on the
 * notification's body opens (or focuses) the item's page. No fetch handler: nothing is cached.
 */

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

/** The payload of a push, or null when it is not ours (wrong shape or not JSON). */
function readPayload(data) {
  if (!data) return null;
  let p;
  try {
    p = data.json();
  } catch {
    return null;
  }
  if (!p || p.v !== 1 || typeof p.id !== "string" || typeof p.title !== "string") return null;
  return p;
}

/** Shows the notification of a push payload; returns the promise of showNotification. */
function showPush(p) {
  const actions = Array.isArray(p.actions) ? p.actions : [];
  return self.registration.showNotification(p.title, {
    body: String(p.body || p.summary || ""),
    tag: String(p.tag || "inbox-" + p.id),
    icon: "/icons/icon-192.png",
    badge: "/icons/badge-96.png",
    requireInteraction: true,
    renotify: p.renotify === true,
    data: p,
    actions: actions.map((a) => ({ action: a.action, title: a.title })),
  });
}

self.addEventListener("push", (event) => {
  const p = readPayload(event.data);
  if (p) event.waitUntil(showPush(p));
});

/**
 * Opens the item's page: an open Pitwall window is focused and navigated there, else a new one
 * opens. (focus and openWindow are allowed only while a real click is handled; navigate works
 * for windows this worker controls.)
 */
async function openItem(url) {
  const target = new URL(url || "/inbox", self.registration.scope).href;
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  for (const w of windows) {
    if (new URL(w.url).origin !== self.location.origin) continue;
    await w.focus().catch(() => undefined);
    if (w.navigate) {
      const moved = await w.navigate(target).catch(() => null);
      if (moved) return moved;
    }
  }
  return self.clients.openWindow(target);
}

/**
 * Posts the chosen button's action token; on success the notification is replaced by a quiet
 * "Approved"/"Denied" one, on failure by one that says why and opens the item when clicked.
 * Returns `{status, body}` of the server's answer (the e2e test reads it).
 */
async function act(p, chosen) {
  let status = 0;
  let body = null;
  try {
    const res = await fetch("/api/push/action", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: chosen.token }),
      credentials: "omit",
    });
    status = res.status;
    body = await res.json().catch(() => null);
  } catch (err) {
    body = { error: { code: "network", message: String(err && err.message) } };
  }
  const ok = status >= 200 && status < 300;
  const done = chosen.action === "allow" ? "Approved" : "Denied";
  await self.registration.showNotification(
    ok ? done + ": " + p.summary : "Could not decide: " + p.summary,
    {
      body: ok
        ? "by " + body.decidedBy
        : ((body && body.error && body.error.message) || "HTTP " + status) + " — tap to open",
      tag: String(p.tag || "inbox-" + p.id),
      icon: "/icons/icon-192.png",
      badge: "/icons/badge-96.png",
      silent: ok,
      data: Object.assign({}, p, { actions: [] }),
    },
  );
  return { status, body };
}

/** What a click does: a button posts its decision, the body opens the item. */
async function onNotificationClick(notification, action) {
  const p = notification.data || {};
  const chosen = (Array.isArray(p.actions) ? p.actions : []).find((a) => a.action === action);
  notification.close();
  if (chosen) return act(p, chosen);
  await openItem(p.url);
  return null;
}

self.addEventListener("notificationclick", (event) => {
  event.waitUntil(onNotificationClick(event.notification, event.action));
});

// For tests (e2e/push-notifications.spec.ts): Chromium's DevTools protocol can deliver a push but
// cannot click a notification, so the test calls the same handler with the shown notification.
self.pitwall = { onNotificationClick, showPush };
