import fs from "node:fs";
import path from "node:path";

import { forwarderDirOf } from "@/clients/agent-hooks/lib/config.mjs";
import { secretFile } from "@/clients/agent-hooks/lib/forwarder-secret.mjs";

import { fail } from "../fail";
import { forwarderPortOf, forwarderSecret } from "./forwarder-setup";
import {
  agentConfigFile,
  claudeHookFile,
  claudeSettingsFile,
  opencodePluginFile,
  opencodePluginStub,
  opencodePluginTarget,
  ourHookEvents,
  PLUGIN_MARK,
  readSettings,
  withOurHooks,
  withoutOurHooks,
  type Agent,
  type InstallScope,
} from "./install";
import {
  formatJson,
  jsonStyleOf,
  missingDirs,
  readManifest,
  removeEmptyDirs,
  writeManifest,
} from "./manifest";

/** The Pitwall checkout the hooks and plugin are installed from (its absolute path). */
export const projectDir = path.resolve(import.meta.dirname, "../..");

/** Writes `text` to `file` (creating folders), recording in the manifest what was there before. */
export function writeRecorded(file: string, text: string): void {
  const config = agentConfigFile();
  const manifest = readManifest(config);
  const earlier = manifest.installs.find((r) => r.file === file);
  const before = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null;
  const createdDirs = missingDirs(path.dirname(file));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  // Installing again keeps the first install's "before": uninstall goes back to the person's file.
  const record = earlier ? { ...earlier, after: text } : { file, before, after: text, createdDirs };
  writeManifest(config, {
    ...manifest,
    installs: [...manifest.installs.filter((r) => r.file !== file), record],
  });
}

/**
 * Takes back what install did to `file`: unchanged since install → the file as it was, byte for
 * byte (or gone, with the folders install created, when it did not exist); changed since →
 * `edit(text)` (our entries removed, layout kept), and removed when that leaves nothing of the
 * person's in a file install created. Forgets the file in the manifest; when nothing is
 * installed any more, removes the user config install created.
 */
export function takeBack(file: string, edit: (text: string) => string | null): void {
  const config = agentConfigFile();
  const manifest = readManifest(config);
  const record = manifest.installs.find((r) => r.file === file);
  const now = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null;
  if (record && now === record.after) {
    if (record.before === null) fs.rmSync(file, { force: true });
    else fs.writeFileSync(file, record.before);
  } else if (now !== null) {
    const edited = edit(now);
    if (edited === null || (record?.before === null && edited.trim() === "{}"))
      fs.rmSync(file, { force: true });
    else fs.writeFileSync(file, edited);
  }
  if (record && record.before === null) removeEmptyDirs(record.createdDirs);
  const installs = manifest.installs.filter((r) => r.file !== file);
  if (installs.length === 0 && manifest.configCreated) {
    fs.rmSync(config, { force: true });
    writeManifest(config, { configCreated: false, installs: [] });
  } else writeManifest(config, { ...manifest, installs });
  if (installs.length === 0 && manifest.secretCreated) {
    fs.rmSync(secretFile(forwarderDirOf(process.env)), { force: true });
    writeManifest(config, { ...readManifest(config), secretCreated: false });
  }
}

/**
 * Installs our Claude Code hooks (settings file) or opencode plugin stub for `agent` in `scope`,
 * recording what was there before. @returns the file written.
 */
export function install(agent: Agent, scope: InstallScope, planTimeoutS: number): string {
  if (agent === "claude-code") {
    const file = claudeSettingsFile(scope);
    const before = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null;
    const forwarder = {
      port: forwarderPortOf(process.env.PITWALL_FORWARDER_PORT),
      secret: forwarderSecret(),
    };
    writeRecorded(
      file,
      formatJson(
        withOurHooks(readSettings(file), claudeHookFile(projectDir), planTimeoutS, forwarder),
        jsonStyleOf(before),
      ),
    );
    return file;
  }
  const file = opencodePluginTarget(scope);
  // Never clobber a plugin of the same name that is not ours.
  if (fs.existsSync(file) && !fs.readFileSync(file, "utf8").startsWith(PLUGIN_MARK))
    fail(`${file} exists and is not Pitwall's plugin; move it away first`);
  writeRecorded(file, opencodePluginStub(opencodePluginFile(projectDir)));
  return file;
}

/** Takes back what install wrote for `agent` in `scope`. @returns the file changed, null when nothing was installed. */
export function uninstall(agent: Agent, scope: InstallScope): string | null {
  if (agent === "claude-code") {
    const file = claudeSettingsFile(scope);
    const settings = readSettings(file);
    if (!ourHookEvents(settings).length) return null;
    takeBack(file, (text) => formatJson(withoutOurHooks(settings), jsonStyleOf(text)));
    return file;
  }
  const file = opencodePluginTarget(scope);
  if (!fs.existsSync(file) || !fs.readFileSync(file, "utf8").startsWith(PLUGIN_MARK)) return null;
  takeBack(file, () => null);
  return file;
}

/** Where our hooks or plugin for `agent` are installed in `scope`, null when they are not. */
export function installedAt(agent: Agent, scope: InstallScope): string | null {
  if (agent === "claude-code") {
    const file = claudeSettingsFile(scope);
    try {
      const events = ourHookEvents(readSettings(file));
      return events.length ? `${file} (${events.join(", ")})` : null;
    } catch (err) {
      return `${file}: unreadable (${(err as Error).message})`;
    }
  }
  const file = opencodePluginTarget(scope);
  return fs.existsSync(file) && fs.readFileSync(file, "utf8").startsWith(PLUGIN_MARK) ? file : null;
}
