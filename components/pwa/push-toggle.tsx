"use client";

import { useEffect, useState } from "react";

import { Button } from "@/components/ui/button";
import { fetchPushKey, subscribePush, unsubscribePush } from "@/lib/api/fetchers/push";
import type { PushSubscriptionInput } from "@/lib/api/push";

type State = "checking" | "unsupported" | "blocked" | "off" | "on" | { error: string };

/** The browser's push subscription of /sw.js, registering the worker when needed. */
async function registration(): Promise<ServiceWorkerRegistration> {
  await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  return navigator.serviceWorker.ready;
}

/** Whether this browser can, may and does receive pushes. */
async function deviceState(): Promise<State> {
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window))
    return "unsupported";
  if (Notification.permission === "denied") return "blocked";
  try {
    return (await (await registration()).pushManager.getSubscription()) ? "on" : "off";
  } catch {
    return "off";
  }
}

/** Turns Web Push of new inbox items on or off for this device (approvers and admins). */
export function PushToggle() {
  const [state, setState] = useState<State>("checking");
  const [busy, setBusy] = useState(false);

  // Reads the browser's permission and subscription (outside React) once.
  useEffect(() => {
    let live = true;
    void deviceState().then((s) => live && setState(s));
    return () => {
      live = false;
    };
  }, []);

  async function turnOn() {
    if ((await Notification.requestPermission()) !== "granted") return setState("blocked");
    const reg = await registration();
    const key = await fetchPushKey();
    let sub = await reg.pushManager.getSubscription();
    if (sub) await sub.unsubscribe(); // it may hold another server key
    sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
    await subscribePush(sub.toJSON() as PushSubscriptionInput);
    setState("on");
  }

  async function turnOff() {
    const sub = await (await registration()).pushManager.getSubscription();
    if (sub) {
      await unsubscribePush(sub.endpoint);
      await sub.unsubscribe();
    }
    setState("off");
  }

  async function run(fn: () => Promise<unknown>) {
    setBusy(true);
    try {
      await fn();
    } catch (err) {
      setState({ error: (err as Error).message });
    } finally {
      setBusy(false);
    }
  }

  if (state === "unsupported")
    return <p className="text-sm text-muted-fg">This browser cannot show notifications.</p>;
  if (state === "blocked")
    return (
      <p className="text-sm text-muted-fg">
        Notifications are blocked for this site: allow them in the browser&apos;s site settings.
      </p>
    );
  return (
    <div className="flex flex-wrap items-center gap-2">
      <Button
        variant="outline"
        className="min-h-11 sm:min-h-8"
        disabled={busy || state === "checking"}
        aria-pressed={state === "on"}
        onClick={() => void run(state === "on" ? turnOff : turnOn)}
      >
        {state === "on" ? "Stop notifications on this device" : "Notify me on this device"}
      </Button>
      {state === "on" && (
        <span className="text-sm text-muted-fg">New items arrive here with Approve / Deny.</span>
      )}
      {typeof state === "object" && (
        <span role="alert" className="text-sm text-failed">
          Could not turn notifications on: {state.error}
        </span>
      )}
    </div>
  );
}
