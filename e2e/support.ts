import { execFileSync } from "node:child_process";
import path from "node:path";
import type { Page } from "@playwright/test";
import WebSocket from "ws";

const projectDir = path.resolve(import.meta.dirname, "..");

/** Runs `npx pitwall …` (bin/pitwall.mjs) against the e2e server's embedded database; returns stdout. */
export function pitwall(args: string[], env: Record<string, string> = {}): string {
  return execFileSync(process.execPath, [path.join(projectDir, "bin", "pitwall.mjs"), ...args], {
    cwd: projectDir,
    encoding: "utf8",
    env: {
      ...process.env,
      DATABASE_URL: "",
      PITWALL_DATA_DIR: process.env.PITWALL_E2E_DATA_DIR!,
      ...env,
    },
  });
}

/** Creates a worker token for `host` with the CLI, the way a user would. */
export function createToken(host: string): string {
  return pitwall(["token", "create", host]).trim().split("\n").at(-1)!;
}

/** A live worker on /ws/ingest that sends frames and waits for their acks. */
export async function connectWorker(baseURL: string, token: string) {
  const ws = new WebSocket(`${baseURL.replace(/^http/, "ws")}/ws/ingest`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const acked = new Set<string>();
  const waiters = new Set<() => void>();
  ws.on("message", (data) => {
    const msg = JSON.parse(String(data)) as { type: string; ids?: string[]; message?: string };
    if (msg.type === "ack") for (const id of msg.ids ?? []) acked.add(id);
    if (msg.type === "error") throw new Error(`server rejected a frame: ${msg.message}`);
    for (const w of waiters) w();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return {
    /** Sends a frame and resolves once the server acked it (committed). */
    async send(frame: { id: string } & Record<string, unknown>): Promise<void> {
      ws.send(JSON.stringify(frame));
      while (!acked.has(frame.id)) {
        await new Promise<void>((resolve) => {
          waiters.add(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    close: () => ws.close(),
  };
}

/**
 * The wall's URL for the overview page (50 active runs each) that now holds the active run whose
 * name contains `name`: `/?wall=1`, or `/?wall=1&page=N`. Runs move between overview pages as
 * others go stale (stale ones sort first), so look it up again when a run is not found.
 */
export async function wallPathOf(page: Page, name: string): Promise<string> {
  const overview = (await (await page.request.get("/api/overview?limit=200")).json()) as {
    active: Array<{ name: string }>;
  };
  const index = overview.active.findIndex((r) => r.name.includes(name));
  return index >= 50 ? `/?wall=1&page=${Math.floor(index / 50) + 1}` : "/?wall=1";
}
