// Pitwall agent hooks: per-session state between hook processes (each hook call is a new process):
// the snapshot counter, the Task* list, whether the session waits, the last plan proposed.
import fs from "node:fs";
import path from "node:path";

import { writeJsonAtomic } from "./spool.mjs";

const fileFor = (cfg, session) =>
  path.join(
    cfg.stateDir,
    "sessions",
    `${String(session)
      .replace(/[^A-Za-z0-9_.-]/g, "_")
      .slice(0, 150)}.json`,
  );

/** The stored state of `session`, or a fresh one: {seq: 0, tasks: [], waiting: false, plans: 0, lastPlan: null}. */
export function readState(cfg, session) {
  try {
    return {
      seq: 0,
      tasks: [],
      waiting: false,
      plans: 0,
      lastPlan: null,
      ...JSON.parse(fs.readFileSync(fileFor(cfg, session), "utf8")),
    };
  } catch {
    return { seq: 0, tasks: [], waiting: false, plans: 0, lastPlan: null };
  }
}

/** Stores the state of `session` (atomically). */
export function writeState(cfg, session, state) {
  writeJsonAtomic(fileFor(cfg, session), state);
}
