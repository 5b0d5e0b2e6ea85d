import fs from "node:fs";

import { parseServerUrls } from "@/lib/client/server-urls";

import { fail } from "../fail";
import { agentConfigFile, readSettings, writeSettings } from "./install";
import { readManifest, writeManifest } from "./manifest";

/** The URL list as stored for the hooks (comma-separated); exits with code 2 on a bad entry. */
export function checkedUrls(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return parseServerUrls(url).join(",");
  } catch (err) {
    return fail(`--url / PITWALL_URL: ${(err as Error).message}`, 2);
  }
}

/** Stores URL(s) and token in the user-level config (mode 600), merging with what is there; records whether install created it. */
export function saveCredentials(
  url: string | undefined,
  token: string | undefined,
  planTimeoutS: number | undefined,
  planFallback: string | undefined,
): string | null {
  if (!url && !token && planTimeoutS === undefined && !planFallback) return null;
  const file = agentConfigFile();
  const existed = fs.existsSync(file);
  const current = readSettings(file);
  writeSettings(
    file,
    {
      ...current,
      ...(url ? { url } : {}),
      ...(token ? { token } : {}),
      ...(planTimeoutS !== undefined ? { planTimeoutS } : {}),
      ...(planFallback ? { planFallback } : {}),
    },
    0o600,
  );
  if (!existed) writeManifest(file, { ...readManifest(file), configCreated: true });
  return file;
}

/**
 * What `agent install` says about the URL and token: where it stored them, else where the hooks
 * will find them (the user config from an earlier install, or the agent's environment).
 */
export function credentialsLine(saved: string | null): string {
  if (saved) return `URL and token in ${saved} (mode 600)`;
  const file = agentConfigFile();
  let stored: Record<string, unknown> = {};
  try {
    stored = readSettings(file);
  } catch {
    // unreadable: as if absent
  }
  if (typeof stored.url === "string" && typeof stored.token === "string" && stored.token)
    return `URL and token: kept as stored in ${file}`;
  return "no URL/token given or stored: the hooks read PITWALL_URL and PITWALL_TOKEN from the agent's environment (or run install again with --url and --token)";
}

/** The URL and token the hooks will use: given on the command line, else the environment, else the stored config. */
export function effectiveCredentials(
  url: string | undefined,
  token: string | undefined,
): { url: string; token: string } {
  let stored: Record<string, unknown> = {};
  try {
    stored = readSettings(agentConfigFile());
  } catch {
    // unreadable: as if absent
  }
  const pick = (...vs: unknown[]) =>
    (vs.find((v) => typeof v === "string" && v !== "") as string | undefined) ?? "";
  return {
    url: pick(url, process.env.PITWALL_URL, stored.url).replace(/\/+$/, ""),
    token: pick(token, process.env.PITWALL_TOKEN, stored.token),
  };
}
