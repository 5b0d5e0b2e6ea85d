/**
 * Browser-side calls of the sign-in endpoints (better-auth under /api/auth, and ours). Plain
 * fetch with JSON: the browser adds the Origin header that the server's CSRF checks require.
 */

/** Outcome of a JSON POST: ok + parsed body, or the status and the server's message. */
export type PostResult<T> =
  | { ok: true; status: number; body: T }
  | { ok: false; status: number; code: string | null; message: string | null };

/** POSTs `body` as JSON (same-origin, cookies included). Never throws for HTTP errors; network errors become status 0. */
export async function postJson<T = unknown>(
  path: string,
  body: unknown,
  method: "POST" | "PATCH" | "DELETE" = "POST",
): Promise<PostResult<T>> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body ?? {}),
      credentials: "same-origin",
    });
  } catch {
    return {
      ok: false,
      status: 0,
      code: "network",
      message: "Pitwall did not answer; check your connection.",
    };
  }
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON (proxy error page)
  }
  if (res.ok) return { ok: true, status: res.status, body: parsed as T };
  // Ours: {error: {code, message}}; better-auth's: {code, message}.
  const p = (parsed ?? {}) as {
    error?: { code?: string; message?: string };
    code?: string;
    message?: string;
  };
  return {
    ok: false,
    status: res.status,
    code: p.error?.code ?? p.code ?? null,
    message: p.error?.message ?? p.message ?? null,
  };
}

/** Signs out (ends the session server-side, clears the cookie, forgets this device's push subscription on both ends), then loads /sign-in. */
export async function signOut(): Promise<void> {
  const push = await devicePushSubscription();
  await postJson("/api/auth/sign-out", push ? { pushEndpoint: push.endpoint } : {});
  // The server forgot this device's subscription; the browser drops it too, so the next person
  // signing in here starts unsubscribed.
  await push?.unsubscribe().catch(() => undefined);
  // A full load on purpose: it drops every cached query of the signed-out person and the live socket.
  // eslint-disable-next-line @next/next/no-location-assign-relative-destination
  window.location.assign("/sign-in");
}

/** This browser's Web Push subscription (of Pitwall's service worker), or null; never throws. */
async function devicePushSubscription(): Promise<PushSubscription | null> {
  try {
    const registration = await navigator.serviceWorker?.getRegistration();
    return (await registration?.pushManager?.getSubscription()) ?? null;
  } catch {
    return null;
  }
}
