import WebSocket from "ws";

import { sleep } from "../support";
import { KEYS, RANK_HZ, RANKS } from "./constants";

/**
 * 8 ranks on their own sockets write steps `from`.. at RANK_HZ for `durationS`: each step, rank r
 * sends its share of KEYS (rank 0 has `loss`) at the step's scheduled time. Returns each step's
 * scheduled epoch ms, how many rank frames were acked, and per step the scheduled send -> ack ms
 * of rank 0's frame (Infinity: never acked).
 */
export async function writeRanks(
  url: string,
  token: string,
  runKey: string,
  from: number,
  durationS: number,
): Promise<{
  scheduled: Map<number, number>;
  acked: number;
  ackLatencies: number[];
  nextStep: number;
}> {
  const sockets = await Promise.all(
    Array.from({ length: RANKS }, async () => {
      const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws/ingest`, {
        headers: { authorization: `Bearer ${token}` },
        perMessageDeflate: false,
      });
      await new Promise<void>((resolve, reject) =>
        ws.once("open", () => resolve()).once("error", reject),
      );
      ws.on("error", () => undefined);
      return ws;
    }),
  );
  let acked = 0;
  let rejected = 0;
  const scheduled = new Map<number, number>();
  const ackedAt = new Map<number, number>();
  for (const ws of sockets)
    ws.on("message", (d) => {
      const now = Date.now();
      const msg = JSON.parse(String(d)) as { type: string; ids?: string[] };
      if (msg.type === "ack") {
        acked += msg.ids?.length ?? 0;
        for (const id of msg.ids ?? []) {
          const m = /^lb-(\d+)-0$/.exec(id);
          if (m) ackedAt.set(Number(m[1]), now);
        }
      } else if (msg.type === "error") rejected++;
    });
  const steps = durationS * RANK_HZ;
  const t0 = Date.now() + 200;
  for (let i = 0; i < steps; i++) {
    const at = t0 + (i * 1000) / RANK_HZ;
    const wait = at - Date.now();
    if (wait > 0) await sleep(wait);
    const step = from + i;
    scheduled.set(step, at);
    for (let r = 0; r < RANKS; r++) {
      let pts = "";
      for (let k = r; k < KEYS.length; k += RANKS)
        pts += `${pts ? "," : ""}{"key":"${KEYS[k]}","step":${step},"value":${Math.sin(step / 50 + k).toFixed(6)}}`;
      sockets[r]!.send(
        `{"v":1,"id":"lb-${step}-${r}","type":"run.metrics","run":"${runKey}","points":[${pts}]}`,
      );
    }
  }
  await sleep(1000);
  for (const ws of sockets) ws.close();
  if (rejected > 0) console.warn(`[bench] live-browser: ${rejected} rank frame(s) rejected`);
  const ackLatencies = [...scheduled].map(([step, at]) => (ackedAt.get(step) ?? Infinity) - at);
  return { scheduled, acked, ackLatencies, nextStep: from + steps };
}
