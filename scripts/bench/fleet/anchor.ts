import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";

import { onCleanup, projectDir } from "../support";

/** Starts the anchor loader process; returns its URL. */
export async function startAnchor(
  databaseUrl: string,
  tokens: string[],
  log: (line: string) => void,
): Promise<{ url: string; pid: number }> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-fleet-")), "tokens.json");
  fs.writeFileSync(file, JSON.stringify(tokens));
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "scripts/bench/fleet/anchor-loader.ts", databaseUrl, file],
    { cwd: projectDir, stdio: ["ignore", "pipe", "pipe"] },
  );
  onCleanup("fleet anchor", async () => {
    child.kill("SIGTERM");
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });
  child.stderr!.on("data", (d: Buffer) => log(`  [anchor] ${d.toString().trim()}`));
  const port = await new Promise<number>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      const m = /"listening":(\d+)/.exec(line);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`anchor loader exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid! };
}
