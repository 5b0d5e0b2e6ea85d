import { randomUUID } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";

import { PrismaClient } from "@/generated/prisma/client";
import { checkFrame, type ClientFrame } from "@/lib/protocol";
import { bindRawPool } from "@/lib/server/database/raw-pool";
import { applyFrames, type FrameOutcome } from "@/lib/server/ingest/apply";
import { createToken, verifyToken, type TokenPrincipal } from "@/lib/server/repositories/tokens";

import { createTestDatabase } from "./db";

/** A client frame as a test writes it: the frame's fields without `v` and `id` (the harness adds both). */
export type RawFrame = Record<string, unknown>;

/** How the harness is set up; every field is optional. */
export interface IngestHarnessOptions {
  /** Receive time applyFrames is given when a call names none (default: the wall clock). */
  now?: () => Date;
  /** Connections in the raw `pg` pool the ingest code writes through (default 4). */
  poolMax?: number;
  /** Connections in Prisma's pool the read models use (default 2). */
  prismaMax?: number;
}

/** How one ingest call differs from the harness's default. */
export interface IngestCallOptions {
  /** Receive time: epoch ms or a Date (default: the harness's `now`). */
  at?: number | Date;
  /** The worker the frames come from (default: the harness's principal). */
  as?: TokenPrincipal;
}

/** A fresh test database with the ingest code's pool, Prisma, one worker principal and helpers that push frames through the real ingest path. */
export interface IngestHarness {
  /** URL of this harness's own database (a clone of the migrated template). */
  databaseUrl: string;
  /** The raw `pg` pool ingest writes through; tests may query it directly. */
  pool: pg.Pool;
  /** Prisma over the same database, for the read models. */
  prisma: PrismaClient;
  /** The worker the frames come from: a token created for the harness's host name, verified. */
  principal: TokenPrincipal;
  /** Validates raw frames like the transports do (adding `v: 1` and a fresh id) and applies them; returns the outcomes. @throws on a frame that does not validate. */
  apply(...raw: RawFrame[]): Promise<FrameOutcome[]>;
  /** Like `apply`. @throws on a frame that does not validate or is rejected by ingest. */
  ingest(...raw: RawFrame[]): Promise<void>;
  /** `ingest`, received at `at` (epoch ms or a Date). */
  ingestAt(at: number | Date, ...raw: RawFrame[]): Promise<void>;
  /** `ingest` with another receive time and/or principal. */
  ingestWith(options: IngestCallOptions, ...raw: RawFrame[]): Promise<void>;
  /** Starts a run keyed `<kind>-<uuid>` (run.start with `name`, default the kind, and `extra` spread last); returns its key and database id. */
  startRun(kind: string, name?: string, extra?: RawFrame): Promise<{ run: string; id: number }>;
  /** Database id of the run with this key. @throws when there is none. */
  runId(key: string): Promise<number>;
  /** A token principal for another host (created and verified now). */
  principalFor(hostName: string): Promise<TokenPrincipal>;
  /** Disconnects Prisma and ends the pool (for afterAll). */
  close(): Promise<void>;
}

/** Creates a test database, its pool and Prisma client and a verified worker token for `hostName`, with helpers to push raw frames through checkFrame and applyFrames. */
export async function ingestHarness(
  hostName: string,
  options: IngestHarnessOptions = {},
): Promise<IngestHarness> {
  const databaseUrl = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: databaseUrl, max: options.poolMax ?? 4 });
  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: databaseUrl, max: options.prismaMax ?? 2 }),
  });
  bindRawPool(prisma, pool);
  const principalFor = async (name: string) =>
    (await verifyToken(prisma, (await createToken(prisma, name)).token))!;
  const principal = await principalFor(hostName);
  const defaultNow = options.now ?? (() => new Date());

  const applyWith = (call: IngestCallOptions, raw: RawFrame[]) => {
    const frames = raw.map((r) => {
      const check = checkFrame({ v: 1, id: randomUUID(), ...r });
      if (!check.ok) throw new Error(`${check.code}: ${check.message}`);
      return check.frame as ClientFrame;
    });
    const { at } = call;
    const now = at === undefined ? defaultNow : () => new Date(at);
    return applyFrames(pool, call.as ?? principal, frames, now);
  };
  const ingestWith = async (call: IngestCallOptions, ...raw: RawFrame[]) => {
    for (const o of await applyWith(call, raw))
      if (!o.ok) throw new Error(`${o.code}: ${o.message}`);
  };
  const runId = async (key: string) => {
    const row = (await pool.query<{ id: number }>(`SELECT id FROM "Run" WHERE key = $1`, [key]))
      .rows[0];
    if (!row) throw new Error(`no run ${key}`);
    return row.id;
  };

  return {
    databaseUrl,
    pool,
    prisma,
    principal,
    apply: (...raw) => applyWith({}, raw),
    ingest: (...raw) => ingestWith({}, ...raw),
    ingestAt: (at, ...raw) => ingestWith({ at }, ...raw),
    ingestWith,
    startRun: async (kind, name = kind, extra = {}) => {
      const run = `${kind}-${randomUUID()}`;
      await ingestWith({}, { type: "run.start", run, name, kind, ...extra });
      return { run, id: await runId(run) };
    },
    runId,
    principalFor,
    close: async () => {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}
