import { forwarderDirOf } from "@/clients/agent-hooks/lib/config.mjs";
import {
  ensureForwarderSecret,
  readForwarderSecret,
  secretFile,
} from "@/clients/agent-hooks/lib/forwarder-secret.mjs";

import { agentConfigFile, DEFAULT_FORWARDER_PORT } from "./install";
import { readManifest, writeManifest } from "./manifest";

/** The forwarder port our HTTP hooks post to: $PITWALL_FORWARDER_PORT at install (the hooks read the same variable), else the default. */
export function forwarderPortOf(value: string | undefined): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : DEFAULT_FORWARDER_PORT;
}

/**
 * The secret our HTTP hooks send to the local forwarder, which refuses requests without it (no
 * other local user or process can inject hook events): `<forwarder dir>/secret` (mode 600; see
 * clients/agent-hooks/lib/forwarder-secret.mjs), created when absent and then recorded in the
 * manifest, so the last uninstall removes it. Shared by every install that uses this forwarder.
 */
export function forwarderSecret(): string {
  const { secret, created } = ensureForwarderSecret(forwarderDirOf(process.env));
  if (created) {
    const config = agentConfigFile();
    writeManifest(config, { ...readManifest(config), secretCreated: true });
  }
  return secret;
}

/** `agent status`'s line on the local forwarder: its port, whether its secret is installed and whether it runs. */
export async function forwarderLine(): Promise<string> {
  const port = forwarderPortOf(process.env.PITWALL_FORWARDER_PORT);
  const dir = forwarderDirOf(process.env);
  const secret = readForwarderSecret(dir);
  let running = "not running (the next Claude Code session starts it)";
  try {
    const res = await fetch(`http://127.0.0.1:${port}/pitwall/health`, {
      signal: AbortSignal.timeout(1000),
    });
    const body = (await res.json()) as { service?: string; pid?: number };
    running =
      body.service === "pitwall-forwarder"
        ? `running (pid ${body.pid})`
        : `PROBLEM: port ${port} is taken by another program (set PITWALL_FORWARDER_PORT and install again)`;
  } catch {
    // nothing answers: not running
  }
  return `local forwarder 127.0.0.1:${port}: ${running}; secret ${secret ? `in ${secretFile(dir)}` : "PROBLEM: missing (run `pitwall agent install claude-code` again)"}`;
}
