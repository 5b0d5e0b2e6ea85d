import type { Command } from "commander";

import { systemClock } from "@/lib/client/clock";
import { HostFactsCollector } from "@/lib/client/host-facts";
import { FlushTimeoutError, PitwallSocket } from "@/lib/client/socket";
import type { HostFacts } from "@/lib/protocol";

import { readClientConfig } from "../config";
import { fail } from "../fail";

/** Seconds to wait for the last acks when stopping. */
const STOP_ACK_TIMEOUT_S = 10;

/** Registers `pitwall heartbeat [--interval 10] [--once] [--disk PATH]`. */
export function registerHeartbeatCommand(program: Command): void {
  program
    .command("heartbeat")
    .description(
      "report this host's liveness and readings (GPUs via nvidia-smi, CPU, RAM, disk) (PITWALL_URL, PITWALL_TOKEN)",
    )
    .option("--interval <seconds>", "seconds between heartbeats", parseInterval, 10)
    .option("--once", "send one heartbeat, wait for its ack and exit")
    .option("--disk <path>", "filesystem whose free space is reported", "/")
    .action(async (opts: { interval: number; once?: boolean; disk: string }) => {
      const config = readClientConfig();
      if (!config.PITWALL_TOKEN)
        fail(
          "PITWALL_TOKEN is not set: create one with `npx pitwall token create <host>` and export it",
          2,
        );
      const socket = new PitwallSocket({ url: config.urls, token: config.PITWALL_TOKEN! });
      socket.on("rejected", (r) =>
        process.stderr.write(
          `pitwall: heartbeat ${r.id ?? ""} rejected: ${r.code}: ${r.message}\n`,
        ),
      );
      const collector = new HostFactsCollector({ diskPath: opts.disk });
      await collector.primeCpu();
      let stopping = false;
      const beat = async () => {
        const facts = await collector.collect();
        if (!stopping)
          socket.send({ type: "heartbeat", ts: Date.now(), intervalS: opts.interval, facts });
        return facts;
      };

      if (opts.once) {
        // Half a second between the two /proc/stat readings gives a meaningful CPU %.
        await systemClock.sleep(500);
        const facts = await beat();
        try {
          await socket.flush(30_000);
        } catch (err) {
          await socket.close();
          if (err instanceof FlushTimeoutError)
            fail(`no ack within 30 s: is Pitwall reachable at ${config.PITWALL_URL}?`, 1);
          fail((err as Error).message, 1);
        }
        await socket.close();
        process.stdout.write(`heartbeat sent: ${describeFacts(facts)}\n`);
        return;
      }

      process.stderr.write(
        `pitwall: sending heartbeats every ${opts.interval} s to ${config.PITWALL_URL} (Ctrl-C to stop)\n`,
      );
      socket.on("fatal", (err) => fail(err.message, 1));
      const stop = async () => {
        if (stopping) return;
        stopping = true;
        await socket.flush(STOP_ACK_TIMEOUT_S * 1000).catch(() => undefined);
        await socket.close();
        process.exit(0);
      };
      process.on("SIGINT", () => void stop());
      process.on("SIGTERM", () => void stop());
      for (;;) {
        await beat();
        await systemClock.sleep(opts.interval * 1000);
        if (stopping) return;
      }
    });
}

function parseInterval(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n <= 3600))
    fail(`--interval must be between 0 and 3600 seconds, got '${value}'`, 2);
  return n;
}

const GiB = 1024 ** 3;

/** One line for humans: `kpro5: 2 GPUs, CPU 12.5%, RAM 10.1/62.8 GiB, disk free 950.0 GiB`. */
function describeFacts(facts: HostFacts & { hostname?: string }): string {
  const parts: string[] = [];
  if (facts.gpus?.length) parts.push(`${facts.gpus.length} GPU${facts.gpus.length > 1 ? "s" : ""}`);
  else parts.push("no GPU");
  if (facts.cpuPct !== undefined)
    parts.push(`CPU ${facts.cpuPct.toFixed(1)}% of ${facts.cpuCount ?? "?"} cores`);
  if (facts.ramTotalBytes !== undefined)
    parts.push(
      `RAM ${((facts.ramUsedBytes ?? 0) / GiB).toFixed(1)}/${(facts.ramTotalBytes / GiB).toFixed(1)} GiB`,
    );
  if (facts.diskFreeBytes !== undefined)
    parts.push(`disk free ${(facts.diskFreeBytes / GiB).toFixed(1)} GiB`);
  return `${facts.hostname ?? "this host"}: ${parts.join(", ")}`;
}
