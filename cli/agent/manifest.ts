import fs from "node:fs";
import path from "node:path";

/**
 * What `pitwall agent install` changed, so `uninstall` can put it back: per file, its text before
 * (null: the file did not exist), the text we wrote, and the folders we created for it; and
 * whether install created the user config (URL and token). Kept beside the user config as
 * `agent-installs.json` (mode 600).
 */
export interface InstallRecord {
  file: string;
  before: string | null;
  after: string;
  createdDirs: string[];
}
export interface InstallManifest {
  configCreated: boolean;
  /** Install created the local forwarder's secret file (removed with the last install). */
  secretCreated?: boolean;
  installs: InstallRecord[];
}

/** The manifest file for the user config file `configFile`. */
export const manifestFile = (configFile: string) =>
  path.join(path.dirname(configFile), "agent-installs.json");

/** Reads the manifest; missing or unreadable → empty. */
export function readManifest(configFile: string): InstallManifest {
  try {
    const m = JSON.parse(
      fs.readFileSync(manifestFile(configFile), "utf8"),
    ) as Partial<InstallManifest>;
    return {
      configCreated: m.configCreated === true,
      ...(m.secretCreated === true ? { secretCreated: true } : {}),
      installs: Array.isArray(m.installs) ? m.installs : [],
    };
  } catch {
    return { configCreated: false, installs: [] };
  }
}

/** Writes the manifest (mode 600), or removes it when it records nothing. */
export function writeManifest(configFile: string, m: InstallManifest): void {
  const file = manifestFile(configFile);
  if (!m.configCreated && !m.secretCreated && m.installs.length === 0) {
    fs.rmSync(file, { force: true });
    return;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(m, null, 2)}\n`, { mode: 0o600 });
}

/** The folders `mkdir -p dir` would create, outermost first. */
export function missingDirs(dir: string): string[] {
  const out: string[] = [];
  for (let d = path.resolve(dir); !fs.existsSync(d); d = path.dirname(d)) {
    out.unshift(d);
    if (path.dirname(d) === d) break;
  }
  return out;
}

/** Removes the folders we created (innermost first) that are empty now; others stay. */
export function removeEmptyDirs(dirs: readonly string[]): void {
  for (const d of [...dirs].reverse()) {
    try {
      fs.rmdirSync(d);
    } catch {
      // not empty (someone put something there) or gone: leave it
    }
  }
}

/** How a JSON file is laid out: its indent (e.g. "  ", "\t") and whether it ends with a newline. */
export interface JsonStyle {
  indent: string;
  finalNewline: boolean;
}

/** The layout of JSON `text` (default two spaces and a final newline for a new file). */
export function jsonStyleOf(text: string | null): JsonStyle {
  if (text === null) return { indent: "  ", finalNewline: true };
  const m = /\n([ \t]+)\S/.exec(text);
  return { indent: m ? m[1]! : "  ", finalNewline: text.endsWith("\n") };
}

/** `value` as JSON text in `style`. */
export function formatJson(value: unknown, style: JsonStyle): string {
  return `${JSON.stringify(value, null, style.indent)}${style.finalNewline ? "\n" : ""}`;
}
