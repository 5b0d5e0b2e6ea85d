import net from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";

import { logger } from "@/lib/server/logger";
import { createTestDatabase } from "@/test/support/db";

import { databaseHealth } from "./health";

// /healthz under CPU load reported a healthy database down (4 of 25 probes): a fresh connection
// took longer than the probe's timeout. One slow probe must not flip it; two in a row do, and a
// refused connection does at once.

let blackHole: net.Server;
let blackHolePort = 0;
const held = new Set<net.Socket>();

beforeAll(async () => {
  // Accepts connections and never answers: a probe against it times out, like one on a busy machine.
  blackHole = net.createServer((s) => {
    held.add(s);
    s.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => blackHole.listen(0, "127.0.0.1", () => resolve()));
  blackHolePort = (blackHole.address() as net.AddressInfo).port;
});

afterAll(async () => {
  for (const s of held) s.destroy();
  await new Promise<void>((resolve) => blackHole.close(() => resolve()));
});

test("one probe that times out keeps 'up'; the second in a row says 'down'; a refused connection says 'down' at once", async () => {
  let t = 1_000_000;
  const now = () => (t += 2000); // past the 1 s cache at every call
  const url = await createTestDatabase();
  expect(await databaseHealth(url, logger, now)).toBe("up");
  const slow = `postgres://u:p@127.0.0.1:${blackHolePort}/db`;
  expect(await databaseHealth(slow, logger, now)).toBe("up");
  expect(await databaseHealth(slow, logger, now)).toBe("down");
  expect(await databaseHealth(url, logger, now)).toBe("up");
  // Nothing listens on a closed port: refused, certain at once.
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", () => resolve()));
  const closedPort = (closed.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  expect(await databaseHealth(`postgres://u:p@127.0.0.1:${closedPort}/db`, logger, now)).toBe(
    "down",
  );
}, 60_000);
