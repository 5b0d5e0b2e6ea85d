// Pitwall agent hooks: the local forwarder's secret. One random secret per forwarder (per user and
// port), kept in `<forwarderDir>/secret` (mode 600, folder 700). `pitwall agent install` creates it
// and writes it into the HTTP hooks' header; the command hooks read it to register sessions; the
// forwarder refuses every request without it. Reading it needs the user's own files, so another
// local user (or a web page) cannot post hook events into the forwarder.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** The secret file of a forwarder folder. */
export const secretFile = (forwarderDir) => path.join(forwarderDir, "secret");

/** The forwarder secret stored in `forwarderDir`, or "" (none, unreadable). Never throws. */
export function readForwarderSecret(forwarderDir) {
  try {
    return fs.readFileSync(secretFile(forwarderDir), "utf8").trim();
  } catch {
    return "";
  }
}

/**
 * The stored forwarder secret, created (32 random bytes as hex) when there is none.
 * @returns {{secret: string, created: boolean}}
 * @throws Error when the folder or file cannot be written.
 */
export function ensureForwarderSecret(forwarderDir) {
  const existing = readForwarderSecret(forwarderDir);
  if (existing.length >= 32) return { secret: existing, created: false };
  fs.mkdirSync(forwarderDir, { recursive: true, mode: 0o700 });
  const secret = crypto.randomBytes(32).toString("hex");
  fs.writeFileSync(secretFile(forwarderDir), `${secret}\n`, { mode: 0o600 });
  fs.chmodSync(secretFile(forwarderDir), 0o600);
  return { secret, created: true };
}
