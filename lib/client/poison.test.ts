import { afterAll, beforeAll, expect, test } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";

import { PitwallSocket, type FrameRejection } from "./socket";

// A worker must not stall forever behind a frame the server keeps failing on. The server here is
// a real `ws` server that behaves like Pitwall before issue 9 did for a poison frame: every time
// the frame arrives it closes the socket with 1011 without acking or rejecting it; other frames
// are acked.

let wss: WebSocketServer;
let url: string;
const received: string[] = [];

beforeAll(async () => {
  wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  url = `http://127.0.0.1:${(wss.address() as { port: number }).port}`;
  wss.on("connection", (ws: WebSocket) => {
    ws.on("message", (data) => {
      const frames = JSON.parse(data.toString()) as Array<{ id: string; type: string }>;
      const ids: string[] = [];
      for (const f of frames) {
        received.push(f.id);
        if (f.type === "run.start" && f.id.endsWith("poison"))
          return ws.close(1011, "database unavailable; resend unacknowledged frames");
        ids.push(f.id);
      }
      ws.send(JSON.stringify({ v: 1, type: "ack", ids }));
    });
  });
});

afterAll(async () => {
  await new Promise<void>((resolve) => wss.close(() => resolve()));
});

test("the SDK gives up on a frame after 5 consecutive 1011 closes with it oldest, logs one line, and the frames behind it are acked", async () => {
  const warnings: string[] = [];
  const socket = new PitwallSocket({
    url,
    token: "t",
    idPrefix: "p",
    backoff: { initialMs: 5, maxMs: 10 },
    warn: (l) => warnings.push(l),
    pingIntervalMs: 0,
  });
  const rejections: FrameRejection[] = [];
  socket.on("rejected", (r) => rejections.push(r));
  socket.send({ id: "before", type: "hello" });
  await socket.flush(10_000);
  socket.send({ id: "x-poison", type: "run.start", run: "r", name: "n", kind: "training" });
  for (let i = 0; i < 3; i++) socket.send({ id: `after-${i}`, type: "hello" });
  await socket.flush(20_000);
  await socket.close();

  expect(rejections).toEqual([
    { id: "x-poison", code: "gave_up", message: expect.stringMatching(/1011 5 times in a row/) },
  ]);
  expect(received.filter((id) => id === "x-poison")).toHaveLength(5);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatch(/^pitwall: gave up on frame x-poison \(run\.start\)/);
  expect(socket.stats()).toMatchObject({ acked: 4, rejected: 1, gaveUp: 1, pending: 0 });
});
