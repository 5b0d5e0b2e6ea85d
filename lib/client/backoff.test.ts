import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";

import { backoffDelayMs, type Clock } from "./clock";
import { FlushTimeoutError, ingestUrl, PitwallSocket, SocketClosedError } from "./socket";

/** A port on which nothing listens (connections are refused at once). */
async function refusedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A clock whose sleeps return at once (after a macrotask) and are recorded. */
function recordingClock(): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => 1_764_400_000_000,
    sleep: (ms) => {
      sleeps.push(ms);
      return new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe("backoffDelayMs", () => {
  test("doubles from initialMs up to maxMs, jittered within [ceiling/2, ceiling]", () => {
    const opts = { initialMs: 100, maxMs: 1000 };
    expect([0, 1, 2, 3, 4, 5, 10].map((a) => backoffDelayMs(a, opts, () => 0))).toEqual([
      50, 100, 200, 400, 500, 500, 500,
    ]);
    expect([0, 1, 2, 3, 4, 5, 10].map((a) => backoffDelayMs(a, opts, () => 0.999999))).toEqual([
      100, 200, 400, 800, 1000, 1000, 1000,
    ]);
    expect(backoffDelayMs(0)).toBeGreaterThanOrEqual(125);
    expect(backoffDelayMs(50)).toBeLessThanOrEqual(30_000);
  });
});

describe("PitwallSocket reconnect backoff (injected clock)", () => {
  test("retries a refused server with growing, capped delays and stops on close()", async () => {
    const clock = recordingClock();
    const socket = new PitwallSocket({
      url: `http://127.0.0.1:${await refusedPort()}`,
      token: "pw_test",
      clock,
      random: () => 0.5,
      backoff: { initialMs: 100, maxMs: 1000 },
    });
    const disconnects: number[] = [];
    socket.on("disconnect", (info) => disconnects.push(info.retryInMs));
    while (clock.sleeps.length < 8) await new Promise((r) => setTimeout(r, 5));
    await socket.close();
    expect(clock.sleeps.slice(0, 8)).toEqual([75, 150, 300, 600, 750, 750, 750, 750]);
    expect(disconnects.slice(0, 8)).toEqual(clock.sleeps.slice(0, 8));
    const after = clock.sleeps.length;
    await new Promise((r) => setTimeout(r, 20));
    expect(clock.sleeps.length).toBe(after);
    expect(socket.stats()).toMatchObject({ connected: false, reconnects: 0 });
  });

  test("several URLs: each attempt goes to the next in turn; the delay grows once per round over all of them", async () => {
    const clock = recordingClock();
    const [a, b, c] = [await refusedPort(), await refusedPort(), await refusedPort()];
    const socket = new PitwallSocket({
      url: `http://127.0.0.1:${a}, http://127.0.0.1:${b}/,http://127.0.0.1:${c}`,
      token: "pw_test",
      clock,
      random: () => 0.5,
      backoff: { initialMs: 100, maxMs: 1000 },
    });
    const tried: string[] = [];
    socket.on("disconnect", (info) =>
      tried.push(`${new URL(info.url).port}>${new URL(info.nextUrl).port}`),
    );
    while (clock.sleeps.length < 7) await new Promise((r) => setTimeout(r, 5));
    await socket.close();
    expect(tried.slice(0, 4)).toEqual([`${a}>${b}`, `${b}>${c}`, `${c}>${a}`, `${a}>${b}`]);
    expect(clock.sleeps.slice(0, 7)).toEqual([75, 75, 75, 150, 150, 150, 300]);
  });

  test("flush times out on the injected clock and reports the pending count; close() keeps nothing without a spool", async () => {
    const clock = recordingClock();
    const socket = new PitwallSocket({
      url: `http://127.0.0.1:${await refusedPort()}`,
      token: "pw_test",
      clock,
      backoff: { initialMs: 10_000 },
    });
    socket.send({ type: "hello" });
    socket.send({ type: "heartbeat" });
    const err = await socket.flush(5000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FlushTimeoutError);
    expect((err as FlushTimeoutError).pending).toBe(2);
    expect(clock.sleeps).toContain(5000);
    const pending = socket.flush();
    await socket.close();
    await expect(pending).rejects.toBeInstanceOf(SocketClosedError);
    expect(() => socket.send({ type: "hello" })).toThrow(SocketClosedError);
  });

  test("a frame over 1 MiB is rejected locally, never queued", async () => {
    const socket = new PitwallSocket({
      url: `http://127.0.0.1:${await refusedPort()}`,
      token: "pw_test",
      clock: recordingClock(),
    });
    const rejected = new Promise((resolve) => socket.once("rejected", resolve));
    const id = socket.send({ type: "run.event", run: "r", message: "x".repeat(1024 * 1024) });
    expect(await rejected).toMatchObject({ id, code: "frame_too_large" });
    expect(socket.stats()).toMatchObject({ pending: 0, rejected: 1 });
    await socket.close();
  });

  test("a spool folder is locked while a client holds it", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-spool-lock-"));
    const url = `http://127.0.0.1:${await refusedPort()}`;
    const a = new PitwallSocket({ url, token: "t", spoolDir: dir, clock: recordingClock() });
    expect(
      () => new PitwallSocket({ url, token: "t", spoolDir: dir, clock: recordingClock() }),
    ).toThrow(/in use/);
    await a.close();
    const b = new PitwallSocket({ url, token: "t", spoolDir: dir, clock: recordingClock() });
    await b.close();
  });
});

test("ingestUrl maps http(s) to ws(s) and keeps a base path", () => {
  expect(ingestUrl("http://localhost:8080")).toBe("ws://localhost:8080/ws/ingest");
  expect(ingestUrl("https://pitwall.example.com/team/")).toBe(
    "wss://pitwall.example.com/team/ws/ingest",
  );
  expect(ingestUrl("ws://h:1/ws/ingest")).toBe("ws://h:1/ws/ingest");
});
