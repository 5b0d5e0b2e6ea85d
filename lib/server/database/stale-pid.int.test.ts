import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { expect, test } from "vitest";

import { startEmbeddedPostgres, type ConnectionInfo } from "./embedded";
import { clearStalePostmasterPid } from "./stale-pid";

const quiet = { info: () => undefined, warn: () => undefined };

/** Resolves once `pid` no longer exists (or after 10 s). */
async function gone(pid: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

test(
  "npm start's embedded PostgreSQL starts after a kill -9 left postmaster.pid naming a pid now used by another process",
  { timeout: 90_000 },
  async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "pw-stale-pid-"));
    await fs.chmod(dataDir, 0o711);
    const first = await startEmbeddedPostgres({ dataDir, log: quiet });
    const { pid } = JSON.parse(
      await fs.readFile(path.join(dataDir, "connection.json"), "utf8"),
    ) as ConnectionInfo;
    process.kill(pid, "SIGKILL");
    await gone(pid);
    // The pid was reused: another live process (not postgres) now has the pid in the lock file.
    const squatter = spawn("sleep", ["60"], { stdio: "ignore" });
    const pidFile = path.join(dataDir, "pg", "postmaster.pid");
    const lines = (await fs.readFile(pidFile, "utf8")).split("\n");
    lines[0] = String(squatter.pid);
    await fs.writeFile(pidFile, lines.join("\n"));
    await new Promise((r) => setTimeout(r, 1000)); // let the orphaned background processes exit

    const warnings: string[] = [];
    const again = await startEmbeddedPostgres({
      dataDir,
      log: { info: () => undefined, warn: (m) => warnings.push(m) },
    });
    try {
      const client = new pg.Client({ connectionString: again.url });
      await client.connect();
      expect((await client.query("select 1 as one")).rows).toEqual([{ one: 1 }]);
      await client.end();
      expect(warnings.join("\n")).toMatch(/removed a stale .*postmaster\.pid/);
      // A live postmaster's lock file is left alone.
      expect(await clearStalePostmasterPid(path.join(dataDir, "pg"))).toBe("live");
    } finally {
      squatter.kill("SIGKILL");
      await again.stop();
      await first.stop().catch(() => undefined);
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  },
);

test("a corrupt or dead-pid lock file is removed; none is 'none'", async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "pw-pidfile-"));
  expect(await clearStalePostmasterPid(dir)).toBe("none");
  await fs.writeFile(path.join(dir, "postmaster.pid"), "not a pid\n");
  expect(await clearStalePostmasterPid(dir)).toBe("removed");
  await fs.writeFile(path.join(dir, "postmaster.pid"), `${2 ** 30}\n/x\n`);
  expect(await clearStalePostmasterPid(dir)).toBe("removed");
  await expect(fs.access(path.join(dir, "postmaster.pid"))).rejects.toThrow();
});
