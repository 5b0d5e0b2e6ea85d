import { PitwallSocket } from "@/lib/client/socket";
import { SpoolLockedError } from "@/lib/client/spool";

import { readClientConfig } from "../config";
import { fail } from "../fail";

/** Shared parts of the `pitwall watch …` commands: the socket, stopping, option parsers. */

/** Opens the socket for a watch command; exits 2 on a missing token or a locked spool. */
export function openSocket(spool: string | undefined, say: (msg: string) => void): PitwallSocket {
  const config = readClientConfig();
  if (!config.PITWALL_TOKEN)
    fail(
      "PITWALL_TOKEN is not set: create one with `npx pitwall token create <host>` and export it",
      2,
    );
  let socket: PitwallSocket;
  try {
    socket = new PitwallSocket({ url: config.urls, token: config.PITWALL_TOKEN!, spoolDir: spool });
  } catch (err) {
    if (err instanceof SpoolLockedError) fail(err.message, 2);
    throw err;
  }
  socket.on("rejected", (r) => say(`frame ${r.id ?? ""} rejected: ${r.code}: ${r.message}`));
  return socket;
}

/** Resolves with the signal's name on SIGINT/SIGTERM/SIGHUP, or with the socket's fatal error. */
export function untilStopped(socket: PitwallSocket): Promise<string | Error> {
  const fatal = new Promise<Error>((resolve) => socket.once("fatal", resolve));
  const stopped = new Promise<string>((resolve) => {
    for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(s, () => resolve(s));
  });
  return Promise.race([stopped, fatal]);
}

/** `--ack-timeout` seconds (0 < s ≤ 86400); exits 2 otherwise. */
export function parseSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 86_400)
    fail(`expected seconds from 0 to 86400, got '${value}'`, 2);
  return n;
}

/** `--poll-interval` milliseconds (10..3600000); exits 2 otherwise. */
export function parseMs(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 10 || n > 3_600_000)
    fail(`expected a number from 10 to 3600000, got '${value}'`, 2);
  return n;
}

/** `--stall-after` whole seconds (5..604800, the protocol's range); exits 2 otherwise. */
export function parseStallAfter(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 5 || n > 7 * 86_400)
    fail(`--stall-after must be a whole number of seconds from 5 to 604800, got '${value}'`, 2);
  return n;
}
