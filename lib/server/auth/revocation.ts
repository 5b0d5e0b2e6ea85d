import { prisma } from "@/lib/server/db";
import type { IngestTokenGuard } from "@/lib/server/ingest/token-guard";
import { parseAuthTopic } from "@/lib/server/live/auth-events";
import { liveBus } from "@/lib/server/live/bus";
import type { Logger } from "@/lib/server/logger";

import type { LiveSessionGuard } from "./live-sessions";

/** What {@link startCredentialWatch} acts on. */
export interface CredentialWatchOptions {
  live: LiveSessionGuard;
  ingest: IngestTokenGuard;
  /** Seconds between backstop re-checks of every open socket (PITWALL_LIVE_RECHECK_S). */
  recheckS: number;
  log: Logger;
}

/**
 * Keeps open sockets in step with their credentials. Immediate path: a token revocation or a
 * person's sessions ending is announced with pg_notify in the same transaction (by the admin API
 * or the CLI, on any instance); every instance hears it through its LiveHub and closes the
 * affected sockets at once — ingest with 1008, live with 4401. Backstop: every `recheckS` seconds
 * all open sockets are checked again (covers a notification missed while LISTEN was reconnecting,
 * and sign-outs and expiries, which are not announced). Returns a function that stops both.
 */
export function startCredentialWatch(opts: CredentialWatchOptions): () => void {
  const { live, ingest, log } = opts;
  const onTopic = (topic: string) => {
    const event = parseAuthTopic(topic);
    if (!event) return;
    if (event.kind === "token-revoked") {
      const ingestClosed = ingest.revoke(event.tokenId);
      const liveClosed = live.closeViewer(`token:${event.tokenId}`);
      if (ingestClosed + liveClosed > 0)
        log.info(
          { tokenId: event.tokenId, ingestClosed, liveClosed },
          "closed the sockets of a revoked worker token",
        );
    } else {
      const liveClosed = live.closeViewer(event.userId);
      if (liveClosed > 0)
        log.info(
          { userId: event.userId, liveClosed },
          "closed the live sockets of a person whose sessions ended",
        );
    }
  };
  liveBus().on("topic", onTopic);

  let sweeping = false;
  const sweep = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    Promise.all([live.sweep(), ingest.sweep(prisma())])
      .then(
        ([liveClosed, ingestClosed]) =>
          liveClosed + ingestClosed > 0 &&
          log.info({ liveClosed, ingestClosed }, "closed sockets whose credentials no longer hold"),
      )
      .catch((err: unknown) => log.error({ err }, "credential re-check of open sockets failed"))
      .finally(() => (sweeping = false));
  }, opts.recheckS * 1000);
  sweep.unref();

  return () => {
    clearInterval(sweep);
    liveBus().off("topic", onTopic);
  };
}
