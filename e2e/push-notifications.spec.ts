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

test("a pushed permission shows as a notification whose Approve decides it without opening the app; a stale button says why; a body click opens the item", async ({
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
  const worker = context.serviceWorkers().find((w) => w.url().endsWith("/sw.js"));
  expect(worker).toBeTruthy();

  // The server pushes to a subscription of the approver at a local push service.
  const pushService = await startPushService();
  const keys = newBrowserKeys();
  const endpoint = pushService.endpoint(`e2e-${randomUUID()}`);
  const sub = await page.request.post("/api/push/subscriptions", {
    headers: { origin: baseURL! },
    data: { endpoint, expirationTime: null, keys: keys.keys },
  });
  expect(sub.status()).toBe(201);

  const tag = randomUUID().slice(0, 6);
  const token = createToken(`e2e-push-${tag}`);
  const open = async (n: number) => {
    const res = await page.request.post("/api/inbox", {
      headers: { authorization: `Bearer ${token}` },
      data: {
        key: `e2e-push:${tag}:${n}`,
        kind: "permission",
        agent: "claude-code",
        toolName: "Bash",
        summary: `pytest -x ${tag}-${n}`,
        input: { command: `pytest -x ${tag}-${n}` },
        project: "pitwall",
        expiresInS: 600,
      },
    });
    expect(res.status()).toBe(201);
    return String(((await res.json()) as { id: number }).id);
  };
  /** The push the server sent for item `id`, as the browser's push stack decrypts it. */
  const pushedText = async (id: string) => {
    let text = "";
    await expect
      .poll(() => {
        for (const r of pushService.received.filter((x) => x.endpoint === endpoint)) {
          const t = keys.decrypt(r.body).toString("utf8");
          if ((JSON.parse(t) as PushPayload).id === id) text = t;
        }
        return text !== "";
      })
      .toBe(true);
    return text;
  };
  /** Chromium's service worker receives the push through the DevTools protocol. */
  const deliver = (data: string) =>
    cdp.send("ServiceWorker.deliverPushMessage", {
      origin: baseURL!,
      registrationId: registrations.get(`${baseURL}/`)!,
      data,
    });
  const shown = (id: string) =>
    page.evaluate(async (t) => {
      const reg = await navigator.serviceWorker.ready;
      return (await reg.getNotifications({ tag: t })).map((n) => ({
        title: n.title,
        body: n.body,
        actions: (
          (n as Notification & { actions?: Array<{ action: string; title: string }> }).actions ?? []
        ).map((a) => `${a.action}:${a.title}`),
      }));
    }, `inbox-${id}`);
  /** The worker's own click handler with the shown notification (CDP cannot click one). */
  const click = (id: string, action: string) =>
    worker!.evaluate(
      async ([t, a]) => {
        const sw = self as unknown as SwScope;
        const [n] = await sw.registration.getNotifications({ tag: t });
        return sw.pitwall.onNotificationClick(n!, a!);
      },
      [`inbox-${id}`, action],
    );
  const decisionOf = async (id: string) =>
    (await (
      await page.request.get(`/api/inbox/${id}/decision`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { status: string; decision: { decision: string; decidedBy: string } | null };

  try {
    const older = await open(1);
    const id = await open(2);
    const newest = await open(3);
    const text = await pushedText(id);
    await deliver(text);
    await expect
      .poll(() => shown(id))
      .toEqual([
        {
          title: `Claude Code on e2e-push-${tag}: permission Bash`,
          body: `pytest -x ${tag}-2\nproject pitwall`,
          actions: ["allow:Approve", "deny:Deny"],
        },
      ]);

    // Approve: the one-use token is posted with no cookies; the agent's long-poll has it.
    expect(await click(id, "allow")).toMatchObject({
      status: 200,
      body: { id, decision: "allow", decidedBy: E2E_USERS.approver.name },
    });
    expect(await decisionOf(id)).toMatchObject({
      status: "decided",
      decision: { decision: "allow", decidedBy: E2E_USERS.approver.name },
    });
    // The notification now says what happened, without buttons.
    await expect
      .poll(() => shown(id))
      .toEqual([
        {
          title: `Approved: pytest -x ${tag}-2`,
          body: `by ${E2E_USERS.approver.name}`,
          actions: [],
        },
      ]);

    // The same push again (e.g. on a second device): its Deny is refused, and the notification says why.
    await deliver(text);
    await expect
      .poll(async () => (await shown(id))[0]?.actions)
      .toEqual(["allow:Approve", "deny:Deny"]);
    expect(await click(id, "deny")).toMatchObject({
      status: 409,
      body: { error: { code: "conflict" } },
    });
    await expect
      .poll(() => shown(id))
      .toEqual([
        {
          title: `Could not decide: pytest -x ${tag}-2`,
          body: expect.stringMatching(/already decided by Ava Approver.* — tap to open$/),
          actions: [],
        },
      ]);
    expect((await decisionOf(id)).decision?.decision).toBe("allow");

    // A click on a notification's body opens its item: the open window goes to /inbox?item=…,
    // with that item selected (the newest; by default the inbox selects the oldest).
    await deliver(await pushedText(newest));
    await expect.poll(async () => (await shown(newest)).length).toBe(1);
    await page.goto("/");
    await click(newest, "");
    await expect(page).toHaveURL(new RegExp(`/inbox\\?item=${newest}$`));
    const item = (n: number) =>
      page.getByTestId("inbox-item").filter({ hasText: `pytest -x ${tag}-${n}` });
    await expect(item(3)).toHaveAttribute("aria-current", "true");
    await expect(item(1)).not.toHaveAttribute("aria-current", "true");
    expect((await decisionOf(older)).status).toBe("waiting");
  } finally {
    await page.request.delete("/api/push/subscriptions", {
      headers: { origin: baseURL! },
      data: { endpoint },
    });
    await pushService.close();
  }
});
