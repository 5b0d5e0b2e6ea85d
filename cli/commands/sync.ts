import type { Command } from "commander";

import { findPythonSpools, readPythonSpool, removePythonSpool } from "@/lib/client/python-spool";
import { FlushTimeoutError, PitwallSocket, type FrameRejection } from "@/lib/client/socket";

import { readClientConfig } from "../config";
import { fail } from "../fail";

/** Registers `pitwall sync <dir>`: uploads Python client spool folders. */
export function registerSyncCommand(program: Command): void {
  program
    .command("sync")
    .argument(
      "<dir>",
      "a Python client spool folder, or a folder of them (e.g. ~/.cache/pitwall/spool copied from an air-gapped host)",
    )
    .description(
      "upload what Python jobs left in their spool (frames keep their ids: ones the server has are only acked again)",
    )
    .option("--timeout <seconds>", "how long to wait for acks per folder", (v) => Number(v), 600)
    .action(async (dir: string, opts: { timeout: number }) => {
      const config = readClientConfig();
      if (!config.PITWALL_TOKEN)
        fail(
          "PITWALL_TOKEN is not set: create one with `npx pitwall token create <host>` and export it",
          2,
        );
      const folders = findPythonSpools(dir);
      if (folders.length === 0) fail(`no spool found at ${dir}`, 2);
      let frames = 0;
      let rejected = 0;
      let skipped = 0;
      for (const folder of folders) {
        let spool;
        try {
          spool = readPythonSpool(folder);
        } catch (err) {
          fail((err as Error).message, 2);
        }
        skipped += spool.skippedLines;
        const socket = new PitwallSocket({ url: config.PITWALL_URL, token: config.PITWALL_TOKEN! });
        const rejections: FrameRejection[] = [];
        socket.on("rejected", (r) => rejections.push(r));
        for (const f of spool.frames) socket.sendValue(f.frame);
        try {
          await socket.flush(opts.timeout * 1000);
        } catch (err) {
          await socket.close();
          if (err instanceof FlushTimeoutError)
            fail(
              `${folder}: ${err.pending} frame(s) not acknowledged after ${opts.timeout} s; nothing removed, run sync again`,
              1,
            );
          fail((err as Error).message, 1);
        }
        await socket.close();
        for (const r of rejections)
          process.stderr.write(
            `${folder}: frame ${r.id ?? "(no id)"} rejected: ${r.code}: ${r.message}\n`,
          );
        frames += spool.frames.length;
        rejected += rejections.length;
        removePythonSpool(spool);
      }
      const cut = skipped ? `, ${skipped} cut-short line(s) skipped` : "";
      process.stdout.write(
        `synced ${folders.length} folder(s): ${frames} frame(s), ${frames - rejected} delivered, ${rejected} rejected${cut}\n`,
      );
      if (rejected > 0) process.exitCode = 1;
    });
}
