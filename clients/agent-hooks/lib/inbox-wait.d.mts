/** Types of inbox-wait.mjs (plain JS so hooks run without a TypeScript loader). */
import type { InboxDecision } from "./permission.mjs";

/** Opens an inbox item and long-polls its decision; null on fault, timeout, closing or abort. */
export function openAndAwait(
  cfg: unknown,
  body: Record<string, unknown>,
  opts: {
    timeoutS: number;
    signal?: AbortSignal;
    onOpened?: (id: number) => (() => void) | void;
    label?: string;
    sleep?: (ms: number) => Promise<void>;
    now?: () => number;
  },
): Promise<InboxDecision | null>;
