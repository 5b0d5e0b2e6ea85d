import fs from "node:fs/promises";
import path from "node:path";

/**
 * After a crash (kill -9 of PostgreSQL, a power loss, a container restart) the cluster's
 * `postmaster.pid` stays behind. PostgreSQL removes it itself when the pid in it is dead, but
 * refuses to start ("lock file postmaster.pid already exists") when that pid was reused by
 * another live process, which is common after a reboot or in containers. This module tells a
 * stale lock file from a live postmaster's.
 */

/** What {@link clearStalePostmasterPid} found. */
export type PidFileState = "none" | "removed" | "live";

/**
 * Reads `<clusterDir>/postmaster.pid` and removes it when its pid is not a live PostgreSQL
 * process (dead, or alive but not `postgres`, per /proc/<pid>/comm). Leaves it (returns "live")
 * when the pid is a live postgres process, or when liveness cannot be told (no /proc).
 * Never throws on a missing or corrupt file (a corrupt one is removed).
 */
export async function clearStalePostmasterPid(
  clusterDir: string,
  isPostgres: (pid: number) => Promise<boolean | null> = procIsPostgres,
): Promise<PidFileState> {
  const file = path.join(clusterDir, "postmaster.pid");
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch {
    return "none";
  }
  const pid = Number.parseInt(text.split("\n")[0] ?? "", 10);
  if (Number.isSafeInteger(pid) && pid > 0 && pidAlive(pid)) {
    const postgres = await isPostgres(pid);
    if (postgres !== false) return "live";
  }
  await fs.rm(file, { force: true });
  return "removed";
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** True/false from /proc/<pid>/comm; null when /proc is not there (not Linux). */
async function procIsPostgres(pid: number): Promise<boolean | null> {
  try {
    return (await fs.readFile(`/proc/${pid}/comm`, "utf8")).trim() === "postgres";
  } catch {
    try {
      await fs.access("/proc/self");
      return false; // /proc exists but not this pid: it exited meanwhile
    } catch {
      return null;
    }
  }
}
