/**
 * `npm run demo`: Pitwall with simulated workers, for a first look without a GPU in sight.
 *
 * Starts Pitwall exactly as `npm start` does (scripts/start.ts as a child: embedded PostgreSQL,
 * migrations, `next build` when stale, the server on PORT), but with its own data folder, so demo
 * data never mixes with real data. Then it creates a worker token per simulated host, prints the
 * URL to open, and runs simulated workers that push through the real worker clients (the
 * TypeScript SDK's PitwallSocket, and the Python client clients/python/pitwall when python3 exists) in
 * accelerated time:
 *   - extraction: 914,000 samples on gpu0..gpu3 of kpro5, ~1.1 MB each, uploaded to S3 with at
 *     most 100 uploads in flight, deleted locally after upload; S3 slows down and recovers (disk
 *     free space shrinks and comes back), a few uploads fail, gpu2 crashes and resumes under a
 *     new boot id; shard artifacts and events.
 *   - training: a DFlash drafter; loss (NaN once), lr (warmup + cosine), grad_norm; a checkpoint
 *     every 30 simulated minutes.
 *   - benchmark: an SGLang sweep C = 1..128 pushed point by point (577.8 tok/s peak), then run.end;
 *     another sweep every two simulated hours.
 *   - deployments: three finished Kimi K2.6 runs on kpro6 (8x RTX PRO 6000: TP8, EP8, EP8 + MTP),
 *     each a sweep plus long-context points at 30K/60K/100K input, to compare on /compare; and a
 *     live long-context run (C=1 and C=4 at 30K/60K/100K) on the EP8 + MTP deployment.
 *   - evals: the τ 12.4 reference baseline; a finished training run 6 with scored checkpoints
 *     (plateaus below the reference); each new checkpoint of the live training run scored per
 *     prompt (coding, math, chat) a few simulated minutes after upload (crosses the reference).
 *   - generation: a worker that hangs after 15 s, so its run (stallAfterS 25) turns stale.
 *   - heartbeats of kpro5, ct129, ws-a6000 and kpro6 every 10 s with GPU facts.
 * It also creates the sign-in account demo@pitwall.local / pitwall-demo (an admin) and, unless HOST
 * is set, listens on 127.0.0.1 only, since that password is printed for everyone.
 * Ctrl-C ends the open runs as cancelled, stops the workers, then the server (SIGTERM; it stops
 * its PostgreSQL). A second Ctrl-C stops the server without waiting for the workers.
 *
 * Flags:
 *   --speed N        simulated seconds per real second (default 60: 1 s = 1 simulated minute)
 *   --duration S     stop by itself after S real seconds (default: run until Ctrl-C)
 *   --port N         HTTP port (default $PORT, else 8080)
 *   --data-dir DIR   embedded PostgreSQL folder (default $PITWALL_DATA_DIR, else .data-demo/);
 *                    must be empty or made by the demo: a folder holding another Pitwall database
 *                    is refused. Delete it to start over.
 *   --seed N         random seed of the simulation (default 1)
 *   --no-python      drive the generation worker with the TypeScript SDK even when python3 exists
 *   -h, --help
 * Environment: PORT and PITWALL_DATA_DIR as above; HOST (default 127.0.0.1 here; HOST=0.0.0.0 to
 * open the demo to other machines); DATABASE_URL is ignored (the demo always uses its own
 * embedded database).
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";

import { readLiveConnection, resolveDataDir } from "@/lib/server/database/embedded";

import { DEMO_USER, prepareDemoAccounts } from "./demo/accounts";
import { DEMO_HOSTS } from "./demo/context";
import { pythonAvailable } from "./demo/generation";
import { assertPortFree, launchPitwall, type PitwallProcess } from "./demo/server";
import { startSimulation, type Simulation } from "./demo/simulation";

const projectDir = path.resolve(import.meta.dirname, "..");
/** Written into the data folder on first use: the demo only ever reuses folders it made. */
const MARKER = "pitwall-demo.json";

const USAGE = `usage: npm run demo -- [--speed N] [--duration S] [--port N] [--data-dir DIR] [--seed N] [--no-python]

  --speed N        simulated seconds per real second (default 60: 1 s = 1 simulated minute)
  --duration S     stop by itself after S real seconds (default: until Ctrl-C)
  --port N         HTTP port (default $PORT, else 8080)
  --data-dir DIR   embedded PostgreSQL folder (default $PITWALL_DATA_DIR, else .data-demo/)
  --seed N         random seed (default 1)
  --no-python      simulate the generation worker in TypeScript even when python3 exists`;

interface DemoOptions {
  speed: number;
  durationS: number | null;
  port: number;
  /** Bind address: $HOST, else 127.0.0.1 (the demo account's password is no secret). */
  host: string;
  dataDir: string;
  seed: number;
  python: boolean;
}

const say = (line: string) => process.stdout.write(`${line}\n`);

/** Parses the command line. @throws Error with the usage on a bad flag. */
function parseOptions(argv: string[]): DemoOptions | null {
  const { values } = parseArgs({
    args: argv,
    options: {
      speed: { type: "string" },
      duration: { type: "string" },
      port: { type: "string" },
      "data-dir": { type: "string" },
      seed: { type: "string" },
      "no-python": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) return null;
  const num = (
    name: string,
    raw: string | undefined,
    fallback: number,
    ok: (n: number) => boolean,
  ): number => {
    if (raw === undefined || raw === "") return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || !ok(n)) throw new Error(`invalid --${name} ${raw}\n\n${USAGE}`);
    return n;
  };
  const envPort = process.env.PORT;
  return {
    speed: num("speed", values.speed, 60, (n) => n > 0 && n <= 36_000),
    durationS:
      values.duration === undefined ? null : num("duration", values.duration, 0, (n) => n > 0),
    port: num(
      "port",
      values.port ?? envPort,
      8080,
      (n) => Number.isInteger(n) && n > 0 && n < 65_536,
    ),
    host: process.env.HOST || "127.0.0.1",
    dataDir: path.resolve(
      values["data-dir"] ?? (process.env.PITWALL_DATA_DIR || path.join(projectDir, ".data-demo")),
    ),
    seed: num("seed", values.seed, 1, Number.isInteger),
    python: !values["no-python"],
  };
}

/**
 * Resolves the data folder (falling back under the temp dir like `npm start` when PostgreSQL
 * could not reach it) and claims it for the demo.
 * @throws Error when the folder holds a database the demo did not create.
 */
async function claimDataDir(requested: string): Promise<string> {
  const dir = await resolveDataDir(projectDir, requested, {
    info: say,
    warn: (m) => say(`warning: ${m}`),
  });
  const marker = path.join(dir, MARKER);
  if (fs.existsSync(path.join(dir, "pg")) && !fs.existsSync(marker)) {
    throw new Error(
      `${dir} holds a Pitwall database that the demo did not create; the demo keeps its data apart. Pass --data-dir <new folder> (or unset PITWALL_DATA_DIR).`,
    );
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o711 });
  if (!fs.existsSync(marker))
    fs.writeFileSync(
      marker,
      `${JSON.stringify({ createdBy: "npm run demo", createdAt: new Date().toISOString() })}\n`,
    );
  return dir;
}

/**
 * Prints a line, but the same line again within 30 s only as a count ("… 12 more times"), so a
 * server problem that repeats every second cannot bury everything else.
 */
function repeatCollapser(print: (line: string) => void): (line: string) => void {
  let last = "";
  let lastAt = 0;
  let repeats = 0;
  return (line) => {
    const now = Date.now();
    if (line === last && now - lastAt < 30_000) {
      repeats++;
      return;
    }
    if (repeats > 0) print(`${last} (${repeats} more time${repeats === 1 ? "" : "s"})`);
    if (line !== last || repeats === 0) print(line);
    last = line;
    lastAt = now;
    repeats = 0;
  };
}

async function main(): Promise<number> {
  let opts: DemoOptions | null;
  try {
    opts = parseOptions(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 2;
  }
  if (!opts) {
    say(USAGE);
    return 0;
  }

  // Stop requests (Ctrl-C, SIGTERM, --duration) at any point; the server child has its own
  // process group, so only we receive the terminal's Ctrl-C and stop things in order.
  let server: PitwallProcess | null = null;
  let simulation: Simulation | null = null;
  let signals = 0;
  let requestStop: (why: string) => void = () => undefined;
  const stopRequested = new Promise<string>((resolve) => (requestStop = resolve));
  const onSignal = (signal: NodeJS.Signals) => {
    signals++;
    if (signals === 1) requestStop(signal);
    else if (signals === 2) {
      say("stopping the server now (not waiting for the workers)");
      void server?.stop();
    } else {
      say("killing the server");
      if (server) {
        try {
          process.kill(-server.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
      process.exit(130);
    }
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // Last resort if we die unexpectedly: never leave the server (and its PostgreSQL) behind.
  process.on("exit", () => {
    if (!server) return;
    try {
      process.kill(-server.pid, "SIGINT");
    } catch {
      // already gone
    }
  });

  await assertPortFree(opts.port, opts.host);
  const dataDir = await claimDataDir(opts.dataDir);
  if (process.env.DATABASE_URL)
    say("note: DATABASE_URL is set; the demo ignores it and uses its own embedded database");
  say(`Pitwall demo: starting Pitwall on port ${opts.port} with its data in ${dataDir}`);
  say(
    "  (the first start builds the dashboard: 1-8 minutes by the machine and its load; later starts take seconds)",
  );
  let up = false;
  const problems = repeatCollapser(say);
  const started = launchPitwall({
    projectDir,
    port: opts.port,
    host: opts.host,
    dataDir,
    logFile: path.join(dataDir, "demo-server.log"),
    onLine: (line, level) => {
      // While starting, show everything (build output included); afterwards only problems.
      if (!up) say(level === "output" ? `  | ${line}` : `  server: ${line}`);
      else if (level === "warn" || level === "error") problems(`  server ${level}: ${line}`);
    },
  });
  server = started;
  const first = await Promise.race([
    started.ready.then(
      (url) => ({ url }),
      (err: unknown) => ({ err }),
    ),
    stopRequested.then((why) => ({ why })),
  ]);
  if ("err" in first) throw first.err;
  if ("why" in first) {
    say(`stopping (${first.why}) before the server was up…`);
    await started.stop();
    return 0;
  }
  up = true;
  const url = first.url;

  let exitCode = 0;
  try {
    const connection = await readLiveConnection(dataDir);
    if (!connection) throw new Error(`no running database found in ${dataDir} (connection.json)`);
    const tokens = await prepareDemoAccounts(connection.url, DEMO_HOSTS);
    const usePython = opts.python && pythonAvailable();
    const keyPrefix = `demo-${new Date().toISOString().replace(/[-:]/g, "").slice(0, 15)}`;
    simulation = await startSimulation({
      url,
      tokens,
      speed: opts.speed,
      seed: opts.seed,
      usePython,
      keyPrefix,
      log: say,
    });

    const scale =
      opts.speed === 60 ? "1 s = 1 simulated minute" : `1 s = ${opts.speed} simulated seconds`;
    say("");
    const shown =
      opts.host === "127.0.0.1" || opts.host === "0.0.0.0" || opts.host === "::"
        ? `http://localhost:${opts.port}`
        : url;
    say(`Pitwall demo is running: open ${shown}`);
    say(
      `  sign in as ${DEMO_USER.email} with password ${DEMO_USER.password} (an admin of the demo's own database)`,
    );
    say(`  simulated time: ${scale} (--speed); rates and ETAs on the dashboard are in real time`);
    say(
      "  extraction on kpro5 (gpu0-gpu3, S3 uploads, a worker restart), training on ct129 (checkpoints, a NaN),",
    );
    say(
      `  a benchmark sweep on ws-a6000, and a generation worker that hangs (${simulation.generationClient === "python" ? "Python client" : "TypeScript SDK"}) and turns stale`,
    );
    say(
      "  three Kimi K2.6 deployments on kpro6 (TP8, EP8, EP8 + MTP) with long-context runs: tick them on",
    );
    say(
      `  ${shown}/runs?kind=benchmark and press Compare for their curves, config differences and a 100K-sample projection`,
    );
    say(
      `  drafter evals: τ per checkpoint of training runs 6 and 7 against the 12.4 reference, live as run 7's checkpoints are scored: ${shown}/evals`,
    );
    say(
      `  agent sessions with live todo lists and plans waiting for a decision: ${shown}/sessions and ${shown}/plans`,
    );
    say(
      "  serving telemetry of the SGLang engine on ws-a6000 (requests, KV cache, tok/s, TTFT, ITL), also under the benchmark run",
    );
    say(`  server log: ${path.join(dataDir, "demo-server.log")}`);
    say(
      `Stop with Ctrl-C (workers first, then the server).${opts.durationS ? ` Stops by itself after ${opts.durationS} s.` : ""}`,
    );
    say("");

    const timer = opts.durationS
      ? setTimeout(() => requestStop("--duration"), opts.durationS * 1000)
      : null;
    const why = await Promise.race([
      stopRequested,
      started.exited.then((code) => `server exited (code ${code})`),
    ]);
    if (timer) clearTimeout(timer);
    if (why.startsWith("server exited")) {
      say(`Pitwall stopped unexpectedly: ${why}; see ${path.join(dataDir, "demo-server.log")}`);
      exitCode = 1;
    }
    say(`stopping (${why}): ending the open runs and stopping the workers…`);
  } catch (err) {
    say(`demo failed: ${(err as Error).message}`);
    exitCode = 1;
  }
  await simulation?.stop();
  say("stopping the server…");
  const code = await started.stop();
  say(code === 0 ? "stopped." : `the server exited with code ${code}`);
  return exitCode || (code === 0 ? 0 : 1);
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
