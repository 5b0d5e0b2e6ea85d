import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { readFramesFile, type FileFrame } from "./frames-file";

/**
 * Reads spool folders written by the Python client (clients/python/pitwall: `seg-NNNNNNNN.jsonl`
 * files of frames, one per line exactly as sent on the wire, plus a `lock` file
 * `{"pid", "host"}`), so `pitwall sync DIR` can upload a folder copied from an air-gapped host.
 * A last line without its newline was cut short by a kill mid-write: its call never returned,
 * so it is skipped.
 */

const SEGMENT = /^seg-\d{8}\.jsonl$/;

/** One spool folder's frames in the order they were made. */
export interface PythonSpool {
  dir: string;
  /** Segment files, oldest first (absolute paths). */
  segments: string[];
  frames: FileFrame[];
  /** Lines that were cut short or not a frame. */
  skippedLines: number;
}

/** `dir` itself when it holds segments, else its sub-folders that do (sorted); [] when none. */
export function findPythonSpools(dir: string): string[] {
  const hasSegments = (d: string) => {
    try {
      return fs.readdirSync(d).some((n) => SEGMENT.test(n));
    } catch {
      return false;
    }
  };
  if (hasSegments(dir)) return [dir];
  let names: string[];
  try {
    names = fs.readdirSync(dir).sort();
  } catch {
    return [];
  }
  return names.map((n) => path.join(dir, n)).filter(hasSegments);
}

/**
 * Reads one spool folder.
 * @throws Error when a live process on this host, or any process on another host, holds its lock.
 */
export function readPythonSpool(dir: string): PythonSpool {
  checkLock(dir);
  const segments = fs
    .readdirSync(dir)
    .filter((n) => SEGMENT.test(n))
    .sort()
    .map((n) => path.join(dir, n));
  const frames: FileFrame[] = [];
  let skippedLines = 0;
  for (const file of segments) {
    let text = fs.readFileSync(file, "utf8");
    const end = text.lastIndexOf("\n");
    if (end < text.length - 1) skippedLines++; // cut short by a kill mid-write
    text = text.slice(0, end + 1);
    if (!text.trim()) continue;
    const read = readFramesFile(text);
    skippedLines += read.problems.length;
    frames.push(...read.frames);
  }
  return { dir, segments, frames, skippedLines };
}

/** Deletes the folder's segments, lock and the folder itself (after every frame was settled). */
export function removePythonSpool(spool: PythonSpool): void {
  for (const file of spool.segments) fs.rmSync(file, { force: true });
  fs.rmSync(path.join(spool.dir, "lock"), { force: true });
  try {
    fs.rmdirSync(spool.dir);
  } catch {
    // something else lives there: leave the folder
  }
}

function checkLock(dir: string): void {
  let holder: { pid?: unknown; host?: unknown };
  try {
    holder = JSON.parse(fs.readFileSync(path.join(dir, "lock"), "utf8")) as typeof holder;
  } catch {
    return; // no lock, or a half-written one: stale
  }
  // A folder copied from another host keeps that host's lock: only this host's can be checked.
  if (typeof holder.pid !== "number" || holder.host !== os.hostname()) return;
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return;
  }
  throw new Error(`spool folder ${dir} is in use by process ${holder.pid} on this host`);
}
