import type { PrismaClient } from "@/generated/prisma/client";
import { activeTokenIds } from "@/lib/server/repositories/tokens";

import type { IngestConnection } from "./socket";

/**
 * The open `/ws/ingest` connections of this instance, by worker token, so a revoked token's
 * sockets can be closed: at once when the revocation is announced ({@link IngestTokenGuard.revoke},
 * driven by lib/server/auth/revocation.ts), and by {@link IngestTokenGuard.sweep} as a backstop
 * (a notification missed while the LISTEN connection was down).
 */
export class IngestTokenGuard {
  private readonly connections = new Set<IngestConnection>();

  /** Tracks `conn` until {@link IngestTokenGuard.remove} (or a revocation) drops it. */
  add(conn: IngestConnection): void {
    this.connections.add(conn);
  }

  /** Stops tracking `conn` (its socket closed). */
  remove(conn: IngestConnection): void {
    this.connections.delete(conn);
  }

  /** Every tracked connection (for draining at shutdown). */
  all(): IngestConnection[] {
    return [...this.connections];
  }

  /** Closes the connections of `tokenId` (1008) at once; returns how many. */
  revoke(tokenId: number): number {
    let closed = 0;
    for (const conn of this.all()) {
      if (conn.tokenId !== tokenId) continue;
      this.connections.delete(conn);
      conn.revoke();
      closed++;
    }
    return closed;
  }

  /**
   * Re-checks the tokens of all open connections in one query and closes those whose token was
   * revoked or deleted; returns how many were closed.
   * @throws the driver's error when the database is unreachable (nothing is closed then).
   */
  async sweep(db: PrismaClient): Promise<number> {
    const tokenIds = [...new Set(this.all().map((c) => c.tokenId))];
    const active = await activeTokenIds(db, tokenIds);
    let closed = 0;
    for (const id of tokenIds) if (!active.has(id)) closed += this.revoke(id);
    return closed;
  }
}
