import type { TokenPrincipal } from "@/lib/server/repositories/tokens";

/**
 * Who may change what a worker created. A run, agent session (todos and activity), plan or
 * baseline is owned by the host of the token that created it (`ownerHostId`; for plans
 * `Plan.hostId`), not by the `host` label a
 * frame or `import --host` carries. Another host's token may not change it — unless the token
 * was created with `--shared` (a benchmark client on another machine). Reading through the API
 * stays open to every worker token (docs/api.md), except a plan's decision, which goes only to
 * its proposer.
 */

/** What can be owned. */
export type OwnedKind = "run" | "session" | "plan" | "baseline";

/** The owner of a stored row: host id and name; null id = no owner recorded (claimed by the next writer). */
export interface Owner {
  hostId: number | null;
  hostName: string | null;
}

/** True when `principal` may change a row owned by `owner`. */
export function mayChange(principal: TokenPrincipal, owner: Owner): boolean {
  return principal.shared || owner.hostId === null || owner.hostId === principal.hostId;
}

/**
 * The `forbidden` message for `principal` trying to `verb` (default "change") `kind` `key` of
 * `owner`: names the owner and the way out.
 */
export function notOwnerMessage(
  kind: OwnedKind,
  key: string,
  owner: Owner,
  principal: TokenPrincipal,
  verb = "change",
): string {
  return (
    `${kind} '${key}' belongs to host ${owner.hostName ?? `#${owner.hostId}`}; a token of host ${principal.hostName} may not ${verb} it ` +
    `(a token created with \`pitwall token create NAME --shared\` may)`
  );
}
