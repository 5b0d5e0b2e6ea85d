import { parseEnv } from "./env";
import { inboxPolicyOf, type InboxPolicy } from "./inbox-policy";

let cached: InboxPolicy | null = null;

/** The inbox policy of this process's environment, parsed once. @throws Error on an invalid variable. */
export function currentInboxPolicy(): InboxPolicy {
  cached ??= inboxPolicyOf(parseEnv());
  return cached;
}
