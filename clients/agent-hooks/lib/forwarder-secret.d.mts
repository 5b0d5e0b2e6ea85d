/** Types of forwarder-secret.mjs (plain JS so hooks run without a TypeScript loader). */
/** The secret file of a forwarder folder. */
export function secretFile(forwarderDir: string): string;
/** The forwarder secret stored in `forwarderDir`, or "" (none, unreadable). Never throws. */
export function readForwarderSecret(forwarderDir: string): string;
/** The stored forwarder secret, created when there is none. @throws Error when it cannot be written. */
export function ensureForwarderSecret(forwarderDir: string): { secret: string; created: boolean };
