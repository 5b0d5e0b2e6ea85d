import fs from "node:fs/promises";
import type { Command } from "commander";

import { readFramesFile } from "@/lib/client/frames-file";
import { FlushTimeoutError, PitwallSocket, type FrameRejection } from "@/lib/client/socket";

import { readClientConfig } from "../config";
import { fail } from "../fail";

/** Registers `pitwall push <file|->`. */
export function registerPushCommand(program: Command): void {
  program
    .command("push")
    .argument(
      "<file>",
      "protocol frames: a JSON array, or JSON lines (bare NaN/Infinity allowed); - reads stdin",
    )
    .description(
      "send protocol frames over /ws/ingest and wait for the server's acks (PITWALL_URL, PITWALL_TOKEN)",
    )
    .option("--timeout <seconds>", "how long to wait for acks", parsePositive, 60)
    .action(async (file: string, opts: { timeout: number }) => {
      const config = readClientConfig();
      if (!config.PITWALL_TOKEN)
        fail(
          "PITWALL_TOKEN is not set: create one with `npx pitwall token create <host>` and export it",
          2,
        );
      let text: string;
      try {
        text = file === "-" ? await readStdin() : await fs.readFile(file, "utf8");
      } catch (err) {
        fail(`cannot read ${file}: ${(err as Error).message}`, 2);
      }
      const label = file === "-" ? "stdin" : file;
      const { frames, problems } = readFramesFile(text);
      for (const p of problems)
        process.stderr.write(`${label}${p.line ? `:${p.line}` : ""}: ${p.message}\n`);

      const socket = new PitwallSocket({ url: config.urls, token: config.PITWALL_TOKEN! });
      const where = new Map<string, string[]>();
      for (const f of frames) {
        const at = f.line ? `${label}:${f.line}` : `${label} frame ${f.index + 1}`;
        where.set(String(f.frame.id), [...(where.get(String(f.frame.id)) ?? []), at]);
      }
      const rejections: FrameRejection[] = [];
      socket.on("rejected", (r) => rejections.push(r));
      for (const f of frames) socket.sendValue(f.frame);
      try {
        await socket.flush(opts.timeout * 1000);
      } catch (err) {
        await socket.close();
        if (err instanceof FlushTimeoutError) {
          fail(
            `${err.pending} of ${frames.length} frame(s) not acknowledged after ${opts.timeout} s: is Pitwall reachable at ${config.PITWALL_URL}?`,
            1,
          );
        }
        fail((err as Error).message, 1);
      }
      await socket.close();

      let rejectedFrames = 0;
      for (const r of rejections) {
        const places = r.id === null ? [label] : (where.get(r.id) ?? [label]);
        rejectedFrames += places.length;
        for (const at of places)
          process.stderr.write(
            `${at}: frame ${r.id ?? "(no id)"} rejected: ${r.code}: ${r.message}\n`,
          );
      }
      const accepted = frames.length - rejectedFrames;
      const skipped = problems.length ? `, ${problems.length} unreadable` : "";
      process.stdout.write(
        `pushed ${frames.length} frame(s): ${accepted} accepted, ${rejectedFrames} rejected${skipped}\n`,
      );
      if (rejectedFrames > 0 || problems.length > 0) process.exitCode = 1;
    });
}

function parsePositive(value: string): number {
  const n = Number(value);
  if (!(n > 0)) fail(`expected a positive number of seconds, got '${value}'`, 2);
  return n;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
