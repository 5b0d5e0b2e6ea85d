import path from "node:path";

/**
 * The real tool outputs the tests read, committed in the repository: `test/fixtures/<tool>/`, each
 * folder with its SOURCE.txt (where the file came from) and, where there is one, SCHEMA.md.
 * Copied from the team's shared fixtures so a clone anywhere runs every test.
 */
export const fixturesDir = path.resolve(import.meta.dirname, "../fixtures");

/** Absolute path of one fixture file: `fixturePath("agent-hooks", "opencode-1.18.33_plugin_events.jsonl")`. */
export function fixturePath(folder: string, name: string): string {
  return path.join(fixturesDir, folder, name);
}
