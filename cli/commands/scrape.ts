import type { Command } from "commander";

import type { FrameSender } from "@/lib/client/run-reporter";
import { scrapeTarget, ServingScraper, type ScrapeTarget } from "@/lib/client/serving-scraper";
import { FlushTimeoutError, PitwallSocket } from "@/lib/client/socket";

import { readClientConfig } from "../config";
import { fail } from "../fail";

/** Seconds to wait for the last acks when stopping. */
const STOP_ACK_TIMEOUT_S = 10;

/** Options shared by `pitwall scrape` and `pitwall run --scrape`. */
export interface ScrapeOptions {
  intervalS: number;
  host?: string;
  dcgm?: string;
}

/** A running scraper: its run keys, and `stop()` (a last scrape, then run.end for each run). */
export interface ScrapeSession {
  runKeys: string[];
  stop(): Promise<void>;
}

/**
 * Starts scraping `urls` into serving runs through `sender` (one run per URL), until `stop()`.
 * Exits with code 2 on a URL that is not http(s).
 */
export function startScrape(
  sender: FrameSender,
  urls: string[],
  opts: ScrapeOptions,
  say: (msg: string) => void,
  config?: Record<string, unknown>,
): ScrapeSession {
  let targets: ScrapeTarget[];
  try {
    targets = urls.map((u) => scrapeTarget(u, opts.host));
  } catch (err) {
    fail((err as Error).message, 2);
  }
  const scraper = new ServingScraper({
    sender,
    targets,
    intervalS: opts.intervalS,
    dcgmUrl: opts.dcgm,
    config,
    onMessage: say,
  });
  scraper.start();
  const abort = new AbortController();
  const loop = scraper.runUntil(abort.signal);
  return {
    runKeys: scraper.runKeys,
    stop: async () => {
      abort.abort();
      await loop;
      scraper.finish();
    },
  };
}

/** Parses `--interval` / `--scrape-interval`: seconds, 0.2 to 3600. */
export function parseScrapeInterval(value: string): number {
  const n = Number(value);
  if (!(n >= 0.2 && n <= 3600))
    fail(`the scrape interval must be between 0.2 and 3600 seconds, got '${value}'`, 2);
  return n;
}

/** Registers `pitwall scrape URL… [--interval S] [--host NAME] [--dcgm URL]`. */
export function registerScrapeCommand(program: Command): void {
  program
    .command("scrape")
    .argument("<url...>", "SGLang / vLLM /metrics endpoints, e.g. http://127.0.0.1:30000/metrics")
    .description(
      "push live serving telemetry (running/queued requests, KV usage, tok/s, TTFT/ITL/E2E p50/p99, accept length) from engines' /metrics as runs of kind serving (PITWALL_URL, PITWALL_TOKEN)",
    )
    .option("--interval <seconds>", "seconds between scrapes", parseScrapeInterval, 5)
    .option(
      "--host <name>",
      "the engines' host (default: the URL's hostname; this machine for localhost)",
    )
    .option(
      "--dcgm <url>",
      "an NVIDIA dcgm-exporter /metrics URL: GPU utilisation, memory and power go into the same runs",
    )
    .action(async (urls: string[], opts: { interval: number; host?: string; dcgm?: string }) => {
      const config = readClientConfig();
      if (!config.PITWALL_TOKEN)
        fail(
          "PITWALL_TOKEN is not set: create one with `npx pitwall token create <host>` and export it",
          2,
        );
      const socket = new PitwallSocket({ url: config.urls, token: config.PITWALL_TOKEN! });
      const say = (msg: string) => process.stderr.write(`pitwall: ${msg}\n`);
      socket.on("rejected", (r) => say(`frame ${r.id ?? ""} rejected: ${r.code}: ${r.message}`));
      socket.on("fatal", (err) => fail(err.message, 1));
      const session = startScrape(
        socket,
        urls,
        { intervalS: opts.interval, host: opts.host, dcgm: opts.dcgm },
        say,
      );
      say(
        `scraping ${urls.length} endpoint(s) every ${opts.interval} s into ${session.runKeys.join(", ")} at ${config.PITWALL_URL} (Ctrl-C to stop)`,
      );
      let stopping = false;
      const stop = async () => {
        if (stopping) return;
        stopping = true;
        await session.stop();
        await socket.flush(STOP_ACK_TIMEOUT_S * 1000).catch((err: unknown) => {
          if (err instanceof FlushTimeoutError)
            say(`${err.pending} frame(s) not acknowledged after ${STOP_ACK_TIMEOUT_S} s`);
        });
        await socket.close();
        process.exit(0);
      };
      process.on("SIGINT", () => void stop());
      process.on("SIGTERM", () => void stop());
    });
}
