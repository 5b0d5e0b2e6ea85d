import http from "node:http";
import type { AddressInfo } from "node:net";

import { sglangExposition, type SglangRankState } from "@/lib/serving/testing";

/**
 * A fake SGLang `/metrics` endpoint on 127.0.0.1 for end-to-end tests: every GET advances the
 * engine by one step (more tokens, 20 more finished requests in known TTFT buckets), so each
 * scrape window holds exactly {@link TTFT_PER_SCRAPE}. `setDown(true)` makes it answer 503.
 */

/** TTFT observations added per scrape, by bucket index of SGLANG_TTFT_BOUNDS_S: 10 in (0.1, 0.25] s, 8 in (0.25, 0.5] s, 2 in (1, 2.5] s. */
export const TTFT_PER_SCRAPE: Record<number, number> = { 8: 10, 9: 8, 12: 2 };
/**
 * p99 TTFT of one window by hand: rank 0.99 · 20 = 19.8 lies in (1, 2.5] s, which holds the last 2
 * observations (18 below it): 1 + 1.5 · (19.8 − 18) / 2 = 2.35 s.
 */
export const EXPECTED_TTFT_P99_MS = 2350;
/** p50 by hand: rank 10 ends the (0.1, 0.25] bucket: 0.25 s. */
export const EXPECTED_TTFT_P50_MS = 250;

/** A running fake endpoint. */
export interface ExpositionServer {
  url: string;
  /** GETs answered with metrics so far. */
  scrapes(): number;
  setDown(down: boolean): void;
  close(): Promise<void>;
}

/** Starts the fake endpoint at `/metrics` on a free port of 127.0.0.1. */
export async function startExpositionServer(): Promise<ExpositionServer> {
  let n = 0;
  let down = false;
  const ttft = Array.from({ length: 21 }, () => 0);
  const server = http.createServer((req, res) => {
    if (req.url !== "/metrics") return res.writeHead(404).end();
    if (down) return res.writeHead(503).end("engine restarting");
    n++;
    for (const [i, c] of Object.entries(TTFT_PER_SCRAPE)) ttft[Number(i)]! += c;
    const rank: SglangRankState = {
      running: 4 + (n % 5),
      queued: n % 3,
      tokenUsage: Math.min(0.95, 0.2 + 0.05 * n),
      genThroughput: 400,
      promptTokens: 1000 * n,
      generationTokens: 2000 * n,
      ttftPerBucket: [...ttft],
      acceptLength: 3.1,
    };
    res
      .writeHead(200, { "content-type": "text/plain; version=0.0.4" })
      .end(sglangExposition([rank]));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/metrics`,
    scrapes: () => n,
    setDown: (d) => (down = d),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
