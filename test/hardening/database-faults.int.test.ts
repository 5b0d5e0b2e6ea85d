import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, expect, test } from "vitest";

import { PrismaClient } from "@/generated/prisma/client";
import {
  startEmbeddedPostgres,
  type ConnectionInfo,
  type EmbeddedDatabase,
} from "@/lib/server/database/embedded";
import { migrateDeploy } from "@/lib/server/database/migrate";
import { createToken } from "@/lib/server/repositories/tokens";
import { startTestServer, type TestServer } from "@/test/support/server";

// The database stopped cleanly and frozen (SIGSTOP) under a running server, on a PostgreSQL of
// this file's own (the shared test cluster must not be stopped).

const projectDir = path.resolve(import.meta.dirname, "../..");
const quiet = { info: () => undefined, warn: () => undefined };
let dataDir: string;
let db: EmbeddedDatabase;
let port: number;
let server: TestServer;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "pw-db-faults-"));
  await fs.chmod(dataDir, 0o711);
  db = await startEmbeddedPostgres({ dataDir, log: quiet });
  port = Number(new URL(db.url).port);
  await migrateDeploy(projectDir, db.url);
  server = await startTestServer({ databaseUrl: db.url });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await db?.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

/** GET /healthz; resolves with status, body and how long it took (ms). */
async function healthz() {
  const started = Date.now();
  const res = await fetch(`${server.url}/healthz`);
  return { status: res.status, body: await res.text(), ms: Date.now() - started };
}

/** Polls /healthz until it says `want` (each answer must come within 2 s); throws after 20 s. */
async function healthzBecomes(want: "up" | "down") {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const h = await healthz();
    expect(h.ms).toBeLessThan(2000);
    if (JSON.parse(h.body).database === want) return h;
    if (Date.now() > deadline) throw new Error(`healthz never said ${want}: ${h.body}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

test(
  "a clean PostgreSQL stop: healthz says down (503) within 2 s with no address, the server lives and logs no uncaught error; restarted, healthz says up",
  { timeout: 120_000 },
  async () => {
    const prisma = new PrismaClient({
      adapter: new PrismaPg({ connectionString: db.url, max: 1 }),
    });
    const token = (await createToken(prisma, "faults-host")).token;
    await prisma.$disconnect();
    // Fill the server's pools with idle connections, which all die when PostgreSQL stops.
    for (let i = 0; i < 5; i++) {
      await fetch(`${server.url}/api/ingest`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify([{ v: 1, id: `hb-${i}`, type: "heartbeat" }]),
      });
    }
    expect((await healthz()).status).toBe(200);

    await db.stop();
    const down = await healthzBecomes("down");
    expect(down.status).toBe(503);
    expect(down.body).toBe('{"ok":false,"database":"down"}');
    expect(down.body).not.toContain(String(port));
    const ingest = await fetch(`${server.url}/api/ingest`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "[]",
    });
    expect(ingest.status).toBe(503);
    expect(await ingest.text()).not.toContain("127.0.0.1");

    db = await startEmbeddedPostgres({ dataDir, port, log: quiet });
    await healthzBecomes("up");
    const logs = server.logs.join("\n");
    expect(logs).not.toMatch(/uncaught|unhandled/i);
    expect(logs.match(/database connection lost/g)?.length ?? 0).toBeLessThanOrEqual(2); // once per pool
  },
);

test(
  "a frozen PostgreSQL (SIGSTOP): healthz answers down within 2 s; thawed, up again",
  { timeout: 120_000 },
  async () => {
    const { pid } = JSON.parse(
      await fs.readFile(path.join(dataDir, "connection.json"), "utf8"),
    ) as ConnectionInfo;
    await healthzBecomes("up");
    process.kill(pid, "SIGSTOP");
    try {
      // The cached answer may still be "up" for up to 1 s.
      const down = await healthzBecomes("down");
      expect(down.status).toBe(503);
    } finally {
      process.kill(pid, "SIGCONT");
    }
    await healthzBecomes("up");
  },
);
