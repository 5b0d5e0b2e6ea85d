import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

import { ensurePythonWheel } from "./python-wheel";

const SOURCES = [
  "app",
  "components",
  "lib",
  "public",
  "next.config.ts",
  "package-lock.json",
  "postcss.config.mjs",
  "tsconfig.json",
];
const SKIP = new Set(["node_modules", ".next", ".data", "generated"]);

/** Next's output folder (see next.config.ts). */
function distDir(): string {
  return process.env.PITWALL_NEXT_DIST_DIR || ".next";
}

/** Newest modification time (ms) among files under `p`. */
function newestMtime(p: string): number {
  let st: fs.Stats;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(p)) {
    if (SKIP.has(entry) || entry.startsWith(".next") || entry.endsWith(".test.ts")) continue;
    newest = Math.max(newest, newestMtime(path.join(p, entry)));
  }
  return newest;
}

/** True when `.next` is missing or older than any source that goes into the build. */
export function buildIsStale(projectDir: string): boolean {
  const buildId = path.join(projectDir, distDir(), "BUILD_ID");
  if (!fs.existsSync(buildId)) return true;
  const built = fs.statSync(buildId).mtimeMs;
  return SOURCES.some((s) => newestMtime(path.join(projectDir, s)) > built);
}

/**
 * Runs `next build` when the production build is missing or stale (~25 s), streaming its output,
 * and builds the Python client's wheel when it is missing or stale (never fails for it).
 * @throws Error when the build fails.
 */
export async function ensureBuild(projectDir: string, log: (msg: string) => void): Promise<void> {
  ensurePythonWheel(projectDir, log);
  if (!buildIsStale(projectDir)) return;
  log("building the dashboard (next build); 75 s on a quiet 2-core machine, minutes under load");
  await new Promise<void>((resolve, reject) => {
    const child = spawn(path.join(projectDir, "node_modules", ".bin", "next"), ["build"], {
      cwd: projectDir,
      stdio: "inherit",
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`next build failed (exit ${code})`)),
    );
    child.on("error", reject);
  });
}
