import { checkFrame, type ClientFrame } from "@/lib/protocol";
import { pool, prisma } from "@/lib/server/db";
import { AuthError } from "@/lib/server/errors";
import { verifyToken, type TokenPrincipal } from "@/lib/server/repositories/tokens";
import { telemetry } from "@/lib/server/telemetry";

import type { FrameOutcome } from "./apply";
import { groupCommitterFor } from "./group-commit";

/** Where frames came from, for metrics. */
export type Transport = "ws" | "http";

/**
 * Resolves an `Authorization: Bearer <token>` header to the host it speaks for.
 * @throws AuthError when the header is missing, malformed, or the token unknown or revoked.
 */
export async function authenticateWorker(
  authorization: string | null | undefined,
): Promise<TokenPrincipal> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  if (!match) throw new AuthError();
  const principal = await verifyToken(prisma(), match[1]!);
  if (!principal) throw new AuthError("unknown or revoked worker token");
  return principal;
}

/**
 * Validates and applies a batch of parsed frames; returns one outcome per input, in order.
 * Invalid frames are rejected alone; valid frames beside them are committed in one transaction
 * (shared with other sockets' and requests' batches: group-commit.ts).
 * `opts.truncated`: the wire parser cut a too-deep subtree somewhere in `values` (see checkFrame).
 * `opts.bytes`: the JSON size of `values` (the request body), for the group committer's budget.
 * @throws the driver's error when the database is unreachable (nothing committed; see applyGroup).
 */
export async function ingestValues(
  values: unknown[],
  principal: TokenPrincipal,
  transport: Transport,
  opts: { truncated?: boolean; bytes?: number } = {},
): Promise<FrameOutcome[]> {
  const t = telemetry();
  t.framesReceived.inc({ transport }, values.length);
  const outcomes: Array<FrameOutcome | undefined> = new Array(values.length);
  const valid: ClientFrame[] = [];
  const validAt: number[] = [];
  values.forEach((value, i) => {
    const check = checkFrame(value, opts);
    if (check.ok) {
      valid.push(check.frame);
      validAt.push(i);
    } else {
      outcomes[i] = { id: check.id ?? "", ok: false, code: check.code, message: check.message };
    }
  });
  const applied = await groupCommitterFor(pool()).submit(principal, valid, opts.bytes);
  applied.forEach((outcome, j) => (outcomes[validAt[j]!] = outcome));
  const result = outcomes as FrameOutcome[];
  countOutcomes(result, transport);
  return result;
}

function countOutcomes(outcomes: FrameOutcome[], transport: Transport): void {
  const t = telemetry();
  for (const o of outcomes) {
    if (o.ok) t.framesAcked.inc({ transport });
    else t.framesRejected.inc({ transport, code: o.code });
  }
}

export type { FrameOutcome };
