import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/**
 * Janitor: cleans up if this process dies without running its own cleanup. `tsx` relays Ctrl-C
 * to this process and SIGKILLs it when it does not confirm the signal within 30 ms (easily
 * missed under load), and `kill -9` skips every handler; either way the server, PostgreSQL and
 * the temp folder would be left behind. The janitor is a detached process (its own process group,
 * so Ctrl-C does not reach it) that polls our pid; once we are gone it stops the processes listed
 * in <temp>/pids.json and removes the folder. It exits by itself when the folder disappears.
 */

const JANITOR_JS = `
const fs = require("node:fs");
const ppid = Number(process.argv[1]);
const dir = process.argv[2];
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch (e) { return e.code === "EPERM"; } };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const stop = async (pids, signal) => {
  for (const pid of pids) { try { process.kill(pid, signal); } catch {} }
  for (let t = 0; t < 15000 && pids.some(alive); t += 200) await sleep(200);
  for (const pid of pids) { if (alive(pid)) { try { process.kill(pid, "SIGKILL"); } catch {} } }
};
(async () => {
  while (alive(ppid)) { if (!fs.existsSync(dir)) return; await sleep(500); }
  if (!fs.existsSync(dir)) return;
  let pids = {};
  try { pids = JSON.parse(fs.readFileSync(dir + "/pids.json", "utf8")); } catch {}
  await stop([pids.serverNode, pids.server].filter(Boolean), "SIGTERM");
  await stop([pids.postmaster].filter(Boolean), "SIGINT");
  fs.rmSync(dir, { recursive: true, force: true });
})();
`;

/** Starts the janitor for `tempDir` (detached; it watches this process's pid). */
export function startJanitor(tempDir: string): void {
  const child = spawn(process.execPath, ["-e", JANITOR_JS, String(process.pid), tempDir], {
    detached: true,
    stdio: "ignore",
  });
  child.unref();
}

const janitorPids: Record<string, number> = {};

/** Records a pid in <temp>/pids.json for the janitor. */
export function recordPid(tempDir: string, name: string, pid: number | null | undefined): void {
  if (!pid) return;
  janitorPids[name] = pid;
  fs.writeFileSync(path.join(tempDir, "pids.json"), JSON.stringify(janitorPids));
}
