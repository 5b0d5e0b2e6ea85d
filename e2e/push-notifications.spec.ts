import { randomUUID } from "node:crypto";
import { expect, test, type CDPSession } from "@playwright/test";

import type { PushPayload } from "../lib/api/push";
import { newBrowserKeys, startPushService } from "../test/support/push-service";
import { E2E_USERS } from "./auth-users";
import { createToken } from "./support";

// Notifications that can act, in real Chromium. The app is installable (manifest, icons, /sw.js
// served without a session) and its service worker registers. A new permission is pushed by the
// server to a subscription whose push service is local (Chromium's own push service, Google's FCM,
// is out of reach offline), decrypted there as a browser's push stack would, and handed to the
// page's service worker through the DevTools protocol (ServiceWorker.deliverPushMessage): the
// worker shows the notification with Approve / Deny. CDP cannot click a notification, so the
// test calls the worker's own click handler with the shown notification (self.pitwall): Approve
// posts the one-use token with no cookies and the agent's long-poll gets the decision; a click on
// the body navigates the open window to the item.

/** What the test uses of the service worker's global scope (public/sw.js). */
interface SwScope {
  registration: ServiceWorkerRegistration;
  pitwall: { onNotificationClick(n: Notification, action: string): Promise<unknown> };
}

test("installable: manifest, icons and the service worker are served without a session", async ({
  page,
  playwright,
  baseURL,
}) => {
  await page.goto("/inbox");
  await expect(page.locator('link[rel="manifest"]')).toHaveAttribute("href", /manifest/);
  const anonymous = await playwright.request.newContext({ baseURL });
  const manifest = await anonymous.get("/manifest.webmanifest");
  expect(manifest.status()).toBe(200);
  const m = (await manifest.json()) as {
    display: string;
    icons: Array<{ src: string; sizes: string }>;
  };
  expect(m.display).toBe("standalone");
  expect(m.icons.map((i) => i.sizes)).toEqual(expect.arrayContaining(["192x192", "512x512"]));
  for (const icon of m.icons) {
    const res = await anonymous.get(icon.src);
    expect(res.status(), icon.src).toBe(200);
    expect(res.headers()["content-type"]).toBe("image/png");
  }
  const sw = await anonymous.get("/sw.js");
  expect(sw.status()).toBe(200);
  expect(sw.headers()["content-type"]).toMatch(/javascript/);
  await anonymous.dispose();
  // The page registers it, scope "/".
  const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
  expect(new URL(scope).pathname).toBe("/");
  await expect(page.getByRole("button", { name: "Notify me on this device" })).toBeVisible();
});

test("a pushed permission shows as a notification whose Approve decides it without opening the app; its body opens the item", async ({
  page,
  context,
  baseURL,
}) => {
  test.setTimeout(90_000);
  await context.grantPermissions(["notifications"], { origin: baseURL });
  const cdp: CDPSession = await context.newCDPSession(page);
  const registrations = new Map<string, string>();
  cdp.on("ServiceWorker.workerRegistrationUpdated", (e) => {
    for (const r of e.registrations)
      if (!r.isDeleted) registrations.set(r.scopeURL, r.registrationId);
  });
  await cdp.send("ServiceWorker.enable");
  await page.goto("/inbox");
  await page.evaluate(async () => void (await navigator.serviceWorker.ready));
  await expect.poll(() => registrations.get(`${baseURL}/`)).toBeTruthy();
  // clients.claim() on activation: the page is controlled, so the worker may navigate it.
  await expect.poll(() => page.evaluate(() => !!navigator.serviceWorker.controller)).toBe(true);

  // The server pushes to a subscription of the approver at a local push service.
  const pushService = await startPushService();
  const keys = newBrowserKeys();
  const endpoint = pushService.endpoint(`e2e-${randomUUID()}`);
  const sub = await page.request.post("/api/push/subscriptions", {
    headers: { origin: baseURL! },
    data: { endpoint, expirationTime: null, keys: keys.keys },
  });
  expect(sub.status()).toBe(201);
  try {
    const tag = randomUUID().slice(0, 6);
    const token = createToken(`e2e-push-${tag}`);
    const opened = await page.request.post("/api/inbox", {
      headers: { authorization: `Bearer ${token}` },
      data: {
        key: `e2e-push:${tag}`,
        kind: "permission",
        agent: "claude-code",
        toolName: "Bash",
        summary: `pytest -x ${tag}`,
        input: { command: `pytest -x ${tag}` },
        project: "pitwall",
        expiresInS: 600,
      },
    });
    expect(opened.status()).toBe(201);
    const id = String(((await opened.json()) as { id: number }).id);
    let payloadText = "";
    await expect
      .poll(() => {
        for (const r of pushService.received.filter((x) => x.endpoint === endpoint)) {
          const text = keys.decrypt(r.body).toString("utf8");
          if ((JSON.parse(text) as PushPayload).id === id) payloadText = text;
        }
        return payloadText !== "";
      })
      .toBe(true);

    // Chromium's service worker receives the push and shows the notification.
    await cdp.send("ServiceWorker.deliverPushMessage", {
      origin: baseURL!,
      registrationId: registrations.get(`${baseURL}/`)!,
      data: payloadText,
    });
    const shown = () =>
      page.evaluate(async (t) => {
        const reg = await navigator.serviceWorker.ready;
        return (await reg.getNotifications({ tag: t })).map((n) => ({
          title: n.title,
          body: n.body,
          actions: (
            (n as Notification & { actions?: Array<{ action: string; title: string }> }).actions ??
            []
          ).map((a) => `${a.action}:${a.title}`),
        }));
      }, `inbox-${id}`);
    await expect.poll(shown).toEqual([
      {
        title: `Claude Code on e2e-push-${tag}: permission Bash`,
        body: `pytest -x ${tag}\nproject pitwall`,
        actions: ["allow:Approve", "deny:Deny"],
      },
    ]);

    // Approve, through the worker's own click handler (CDP cannot click a notification).
    const worker = context.serviceWorkers().find((w) => w.url().endsWith("/sw.js"))!;
    expect(worker).toBeTruthy();
    const answer = await worker.evaluate(async (t) => {
      const sw = self as unknown as SwScope;
      const [n] = await sw.registration.getNotifications({ tag: t });
      return sw.pitwall.onNotificationClick(n!, "allow");
    }, `inbox-${id}`);
    expect(answer).toMatchObject({
      status: 200,
      body: { id, decision: "allow", decidedBy: E2E_USERS.approver.name },
    });
    const decided = (await (
      await page.request.get(`/api/inbox/${id}/decision`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { status: string; decision: { decision: string; decidedBy: string } };
    expect(decided).toMatchObject({
      status: "decided",
      decision: { decision: "allow", decidedBy: E2E_USERS.approver.name },
    });
    // The notification now says what happened, without buttons.
    await expect.poll(shown).toEqual([
      {
        title: `Approved: pytest -x ${tag}`,
        body: `by ${E2E_USERS.approver.name}`,
        actions: [],
      },
    ]);

    // A click on the body opens the item: the open window is navigated to it.
    await worker.evaluate(async (t) => {
      const sw = self as unknown as SwScope;
      const [n] = await sw.registration.getNotifications({ tag: t });
      await sw.pitwall.onNotificationClick(n!, "");
    }, `inbox-${id}`);
    await expect(page).toHaveURL(new RegExp(`/inbox\\?item=${id}$`));
  } finally {
    await page.request.delete("/api/push/subscriptions", {
      headers: { origin: baseURL! },
      data: { endpoint },
    });
    await pushService.close();
  }
});
