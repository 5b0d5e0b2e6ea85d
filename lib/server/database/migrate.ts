import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * Applies pending Prisma migrations to `databaseUrl` with `prisma migrate deploy` (offline: the
 * CLI uses the WebAssembly schema engine shim in prisma/engine/). Takes ~1-3 s.
 * @throws Error with the CLI's output when a migration fails.
 */
export async function migrateDeploy(projectDir: string, databaseUrl: string): Promise<void> {
  const prismaBin = path.join(projectDir, "node_modules", ".bin", "prisma");
  try {
    await run(prismaBin, ["migrate", "deploy"], {
      cwd: projectDir,
      env: { ...process.env, DATABASE_URL: databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `prisma migrate deploy failed: ${e.message}\n${e.stdout ?? ""}${e.stderr ?? ""}`,
    );
  }
}
