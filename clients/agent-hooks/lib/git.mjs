// Pitwall agent hooks: the git branch a session works on (read from .git/HEAD, no git process).
import fs from "node:fs";
import path from "node:path";

/** The checked-out git branch of `cwd` (reads .git/HEAD of it or a parent), or undefined. */
export function gitBranch(cwd) {
  let dir = cwd;
  for (let i = 0; dir && i < 20; i++) {
    try {
      const head = fs.readFileSync(path.join(dir, ".git", "HEAD"), "utf8");
      return /^ref: refs\/heads\/(.+)$/m.exec(head)?.[1]?.trim();
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return undefined;
      dir = parent;
    }
  }
  return undefined;
}
