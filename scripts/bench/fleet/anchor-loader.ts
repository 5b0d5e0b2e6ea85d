/**
 * The `fleet` scenario's anchor (issue 22): a minimal durable loader that does the work Pitwall
 * does for the same traffic, and nothing more. Its own process (like the server), on the same
 * PostgreSQL: the same sockets (`/ws/ingest`, Bearer token checked against a SHA-256 set), the same
 * frames (JSON.parse, the `type` and `id` read), a group commit every 20 ms or 1,000 point rows,
 * 4 PostgreSQL connections, a keyed `INSERT … SELECT FROM unnest(…) ON CONFLICT` of one row per
 * point (plus an upsert of each run's progress and each host's heartbeat), and an ack listing the
 * frame ids after COMMIT. Frozen once committed: Pitwall is measured against it, never the
 * reverse.
 *
 * Run: `tsx scripts/bench/fleet/anchor-loader.ts DATABASE_URL TOKENS_JSON_FILE`; prints
 * `{"listening":PORT}` on stdout once it accepts connections.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import pg from "pg";
import { WebSocketServer, type WebSocket } from "ws";

const [databaseUrl, tokensFile] = process.argv.slice(2);
if (!databaseUrl || !tokensFile)
  throw new Error("usage: anchor-loader.ts DATABASE_URL TOKENS_JSON_FILE");
const sha = (s: string) => createHash("sha256").update(s).digest("hex");
const tokenHashes = new Set((JSON.parse(fs.readFileSync(tokensFile, "utf8")) as string[]).map(sha));
const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });

await pool.query(
  `DROP TABLE IF EXISTS fleet_anchor_point, fleet_anchor_progress, fleet_anchor_heartbeat`,
);
await pool.query(
  `CREATE TABLE fleet_anchor_point (run text, key text, step int8, value float8, ts timestamptz, PRIMARY KEY (run, key, step))`,
);
await pool.query(
  `CREATE TABLE fleet_anchor_progress (run text PRIMARY KEY, boot text, done int8, ts timestamptz)`,
);
await pool.query(`CREATE TABLE fleet_anchor_heartbeat (host text PRIMARY KEY, ts timestamptz)`);

interface Frame {
  id?: string;
  type?: string;
  run?: string;
  bootId?: string;
  done?: number;
  points?: Array<{ key: string; step: number; value: number }>;
}

/** What the next COMMIT writes and whom it acks. Points are keyed so a batch holds a (run, key, step) once (last wins). */
class Group {
  points = new Map<string, [string, string, number, number]>();
  progress = new Map<string, [string, string, number]>();
  hosts = new Set<string>();
  acks = new Map<WebSocket, string[]>();
}
let group = new Group();
let timer: NodeJS.Timeout | null = null;

function take(ws: WebSocket, host: string, f: Frame): void {
  if (f.type === "run.metrics" && f.run && f.points)
    for (const p of f.points)
      group.points.set(`${f.run}\0${p.key}\0${p.step}`, [f.run, p.key, p.step, p.value]);
  else if (f.type === "run.progress" && f.run)
    group.progress.set(f.run, [f.run, f.bootId ?? "", f.done ?? 0]);
  else if (f.type === "heartbeat") group.hosts.add(host);
  if (f.id) (group.acks.get(ws) ?? group.acks.set(ws, []).get(ws)!).push(f.id);
  if (group.points.size >= 1000) void flush();
  else timer ??= setTimeout(() => void flush(), 20);
}

async function flush(): Promise<void> {
  if (timer) clearTimeout(timer);
  timer = null;
  const g = group;
  group = new Group();
  // Sorted so that concurrent groups lock rows in one order (no deadlocks).
  const pts = [...g.points.values()].sort((a, b) =>
    a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : a[2] - b[2],
  );
  const prog = [...g.progress.values()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const hosts = [...g.hosts].sort();
  const c = await pool.connect();
  try {
    await c.query("BEGIN");
    if (pts.length)
      await c.query(
        `INSERT INTO fleet_anchor_point SELECT r, k, s, v, now() FROM unnest($1::text[], $2::text[], $3::int8[], $4::float8[]) AS t(r, k, s, v)
         ON CONFLICT (run, key, step) DO UPDATE SET value = EXCLUDED.value, ts = EXCLUDED.ts`,
        [pts.map((p) => p[0]), pts.map((p) => p[1]), pts.map((p) => p[2]), pts.map((p) => p[3])],
      );
    if (prog.length)
      await c.query(
        `INSERT INTO fleet_anchor_progress SELECT r, b, d, now() FROM unnest($1::text[], $2::text[], $3::int8[]) AS t(r, b, d)
         ON CONFLICT (run) DO UPDATE SET boot = EXCLUDED.boot, done = EXCLUDED.done, ts = EXCLUDED.ts`,
        [prog.map((p) => p[0]), prog.map((p) => p[1]), prog.map((p) => p[2])],
      );
    if (hosts.length)
      await c.query(
        `INSERT INTO fleet_anchor_heartbeat SELECT h, now() FROM unnest($1::text[]) AS t(h) ON CONFLICT (host) DO UPDATE SET ts = EXCLUDED.ts`,
        [hosts],
      );
    await c.query("COMMIT");
    for (const [ws, ids] of g.acks)
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: "ack", ids }));
  } catch (err) {
    await c.query("ROLLBACK").catch(() => undefined);
    console.error(`anchor: group of ${pts.length} points failed: ${(err as Error).message}`);
  } finally {
    c.release();
  }
}

const server = http.createServer((_req, res) => res.writeHead(404).end());
const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
server.on("upgrade", (req, socket, head) => {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
  if (req.url !== "/ws/ingest" || !token || !tokenHashes.has(sha(token)))
    return void socket.end("HTTP/1.1 401 Unauthorized\r\n\r\n");
  const host = sha(token).slice(0, 12);
  wss.handleUpgrade(req, socket, head, (ws) => {
    ws.on("error", () => undefined);
    ws.on("message", (data) => {
      let f: Frame;
      try {
        f = JSON.parse(data.toString()) as Frame;
      } catch {
        return void ws.send(JSON.stringify({ type: "error", id: null, code: "invalid_json" }));
      }
      take(ws, host, f);
    });
  });
});
server.listen(0, "127.0.0.1", () =>
  console.log(JSON.stringify({ listening: (server.address() as { port: number }).port })),
);
process.on("SIGTERM", () => void pool.end().finally(() => process.exit(0)));
