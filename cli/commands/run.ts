import { execFile, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { Option, type Command } from "commander";

import { systemClock } from "@/lib/client/clock";
import { HostFactsCollector } from "@/lib/client/host-facts";
import { RunReporter, signalNumber } from "@/lib/client/run-reporter";
import { FlushTimeoutError, PitwallAuthError, PitwallSocket } from "@/lib/client/socket";
import { SpoolLockedError } from "@/lib/client/spool";
import { RUN_KINDS, type RunKind } from "@/lib/protocol";

import { readClientConfig } from "../config";
import { fail } from "../fail";
import { parseScrapeInterval, startScrape, type ScrapeSession } from "./scrape";
import { followBenchFile, type BenchFollow } from "./watch";

interface RunOptions {
  kind: RunKind;
  name: string;
  total?: number;
  unit?: string;
  key?: string;
  tag: string[];
  host?: string;
  notes?: string;
  stallAfter?: number;
  spool?: string;
  heartbeatInterval: number;
  ackTimeout: number;
  scrape: string[];
  scrapeInterval: number;
  follow?: string;
  liveOutput: boolean;
}

/** How long we wait for the first connection before starting the command anyway. */
const CONNECT_GRACE_MS = 3000;
/** How often the reporter is asked to send progress (it sends at most one per second). */
const TICK_MS = 250;
/** Our own warnings about bad PITWALL lines, at most. */
const MAX_WARNINGS = 10;
const FORWARDED_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** Registers `pitwall run … -- <command...>`. */
export function registerRunCommand(program: Command): void {
  program
    .command("run")
    .argument("<command...>", "the command to run and its arguments (put them after --)")
    .description(
      "run a command as a live Pitwall run: progress lines, heartbeats, exit status (PITWALL_URL, PITWALL_TOKEN)",
    )
    .addOption(
      new Option("--kind <kind>", "what the run is").choices(RUN_KINDS).makeOptionMandatory(),
    )
    .requiredOption("--name <name>", "display name of the run")
    .option("--total <n>", "items in all, when known up front (e.g. 914000)", parseCount)
    .option("--unit <unit>", "what the items are (samples, prompts, steps…)")
    .option(
      "--key <key>",
      "client key of the run (default: unique per invocation); reusing a key continues that run",
    )
    .addOption(new Option("--tag <tag...>", "tag(s) for the run").default([]))
    .option("--host <host>", "where the work runs (default: the token's host)")
    .option("--notes <text>", "notes shown on the run page")
    .option(
      "--stall-after <seconds>",
      "seconds without a push before the run shows as stale (5-604800, default 120)",
      parseStallAfter,
    )
    .option(
      "--spool <dir>",
      "keep unacknowledged frames in this folder, so a restart of pitwall loses nothing",
    )
    .option(
      "--heartbeat-interval <seconds>",
      "seconds between host heartbeats (0: none; at most 3600)",
      (v) => parseSeconds(v, 3600),
      10,
    )
    .addOption(
      new Option(
        "--scrape <url...>",
        "also scrape these SGLang / vLLM /metrics endpoints while the command runs (serving runs linked to this one)",
      ).default([]),
    )
    .option(
      "--scrape-interval <seconds>",
      "seconds between scrapes of --scrape endpoints",
      parseScrapeInterval,
      2,
    )
    .option(
      "--ack-timeout <seconds>",
      "at exit, how long to wait for the server to acknowledge everything",
      (v) => parseSeconds(v, 86_400),
      30,
    )
    .option(
      "--no-live-output",
      "do not send the command's output lines while it runs (the last 200 lines still go with the run's end)",
    )
    .option(
      "--follow <file>",
      "with --kind benchmark: import each result line the command appends to this SGLang / vLLM JSON-lines file as a point of this run, live",
    )
    .action(async (command: string[], opts: RunOptions) => {
      process.exit(await runCommand(command, opts));
    });
}

async function runCommand(command: string[], opts: RunOptions): Promise<number> {
  const config = readClientConfig();
  if (!config.PITWALL_TOKEN)
    fail(
      "PITWALL_TOKEN is not set: create one with `npx pitwall token create <host>` and export it",
      2,
    );
  if (opts.follow !== undefined && opts.kind !== "benchmark")
    fail("--follow needs --kind benchmark (its lines become benchmark points)", 2);
  const hostname = os.hostname();
  const runKey =
    opts.key ??
    `run-${hostname}-${new Date().toISOString().replace(/[:.]/g, "")}-${randomBytes(3).toString("hex")}`;
  const cwd = process.cwd();

  let socket: PitwallSocket;
  try {
    socket = new PitwallSocket({
      url: config.urls,
      token: config.PITWALL_TOKEN!,
      spoolDir: opts.spool,
    });
  } catch (err) {
    if (err instanceof SpoolLockedError) fail(err.message, 2);
    throw err;
  }
  const say = (msg: string) => process.stderr.write(`pitwall: ${msg}\n`);
  wireSocketMessages(socket, say);
  if (socket.replayedFrames > 0)
    say(`resending ${socket.replayedFrames} frame(s) left in ${opts.spool} by an earlier run`);

  // Fail fast on a bad token; an unreachable server does not stop the work (frames wait for it).
  const grace = new AbortController();
  const first = await Promise.race([
    socket.waitOpen().then(
      () => "open" as const,
      (err: unknown) => err as Error,
    ),
    systemClock.sleep(CONNECT_GRACE_MS, grace.signal).then(() => "timeout" as const),
  ]);
  grace.abort();
  if (first instanceof PitwallAuthError) {
    await socket.close();
    fail(first.message, 2);
  }
  if (first === "timeout")
    say(
      `cannot reach Pitwall at ${config.PITWALL_URL} yet; running the command anyway (frames are sent once it is reachable)`,
    );

  let warnings = 0;
  const reporter = new RunReporter({
    sender: socket,
    run: runKey,
    bootId: randomUUID(),
    total: opts.total,
    unit: opts.unit,
    liveOutput: opts.liveOutput,
    onWarning: (msg) => {
      if (++warnings <= MAX_WARNINGS)
        say(msg + (warnings === MAX_WARNINGS ? " (further warnings suppressed)" : ""));
    },
  });
  const gitCommit = await gitHead(cwd);
  const scrape: ScrapeSession | null = opts.scrape.length
    ? startScrape(socket, opts.scrape, { intervalS: opts.scrapeInterval }, say, {
        benchmarkRun: runKey,
      })
    : null;
  reporter.start({
    name: opts.name,
    kind: opts.kind,
    tags: opts.tag,
    host: opts.host,
    notes: opts.notes,
    stallAfterS: opts.stallAfter,
    config: {
      command,
      commandLine: command.map(shellQuote).join(" "),
      cwd,
      ...(gitCommit ? { gitCommit } : {}),
      hostname,
      ...(scrape ? { servingRuns: scrape.runKeys } : {}),
    },
  });

  // Lines already in the file belong to earlier sweeps: only what the command appends is this run's.
  const follow: BenchFollow | null = opts.follow
    ? await followBenchFile(
        socket,
        { file: path.resolve(opts.follow), runKey, startRun: false, fromEnd: true },
        say,
      )
    : null;

  const collector = new HostFactsCollector({ diskPath: cwd });
  let heartbeat: NodeJS.Timeout | null = null;
  if (opts.heartbeatInterval > 0) {
    await collector.primeCpu();
    const beat = () =>
      void collector
        .collect()
        .then((facts) =>
          socket.send({
            type: "heartbeat",
            ts: Date.now(),
            intervalS: opts.heartbeatInterval,
            facts,
          }),
        )
        .catch(() => undefined); // the socket closed while nvidia-smi was answering: nothing to report
    beat();
    heartbeat = setInterval(beat, opts.heartbeatInterval * 1000);
  }
  const ticker = setInterval(() => reporter.tick(), TICK_MS);

  const exit = await runChild(
    command,
    reporter,
    { PITWALL_RUN_KEY: runKey, PYTHONUNBUFFERED: process.env.PYTHONUNBUFFERED ?? "1" },
    say,
  );
  clearInterval(ticker);
  if (heartbeat) clearInterval(heartbeat);
  await scrape?.stop();
  await follow?.stop(); // the last complete lines, before run.end
  reporter.finish(exit);

  try {
    await socket.flush(opts.ackTimeout * 1000);
  } catch (err) {
    const pending =
      err instanceof FlushTimeoutError
        ? `${err.pending} frame(s) not acknowledged after ${opts.ackTimeout} s`
        : (err as Error).message;
    say(
      opts.spool
        ? `${pending}; they are kept in ${opts.spool} and sent by the next \`pitwall run --spool ${opts.spool}\``
        : `${pending}; they are lost (use --spool to keep them)`,
    );
  }
  await socket.close();
  return exit.code ?? (exit.signal ? 128 + signalNumber(exit.signal) : 1);
}

/**
 * Spawns the command in its own process group (so Ctrl-C reaches it once, through us, and
 * reaches its own children too), passes its output through unchanged while feeding the reporter,
 * and forwards SIGINT/SIGTERM/SIGHUP to the group. Resolves when the command and its output end.
 */
async function runChild(
  command: string[],
  reporter: RunReporter,
  extraEnv: Record<string, string>,
  say: (msg: string) => void,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; cancelled: boolean }> {
  const [file, ...args] = command;
  const child = spawn(file!, args, {
    stdio: ["inherit", "pipe", "pipe"],
    detached: true,
    env: { ...process.env, ...extraEnv },
  });
  let forwarded: NodeJS.Signals | null = null;
  const forward = (signal: NodeJS.Signals) => {
    forwarded = signal;
    try {
      process.kill(-child.pid!, signal);
    } catch {
      child.kill(signal);
    }
  };
  const handlers = FORWARDED_SIGNALS.map((s) => [s, () => forward(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);
  pipe(child.stdout, process.stdout, (chunk) => reporter.write("stdout", chunk));
  pipe(child.stderr, process.stderr, (chunk) => reporter.write("stderr", chunk));

  const result = await new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    error?: Error;
  }>((resolve) => {
    child.once("error", (error) => resolve({ code: 127, signal: null, error }));
    child.once("close", (code, signal) => resolve({ code, signal }));
  });
  for (const [s, h] of handlers) process.off(s, h);
  if (result.error) {
    say(`cannot start ${file}: ${result.error.message}`);
    reporter.write("stderr", `pitwall: cannot start ${file}: ${result.error.message}\n`);
  }
  const sent = forwarded as NodeJS.Signals | null;
  const cancelled =
    sent !== null && (result.signal === sent || result.code === 128 + signalNumber(sent));
  return { code: result.code, signal: result.signal, cancelled };
}

/**
 * Passes a child's stream to ours unchanged (pausing the child while ours is full) and taps it.
 * If ours breaks (`pitwall run … | head`), the command keeps running and is still reported.
 */
function pipe(from: Readable | null, to: Writable, tap: (chunk: Buffer) => void): void {
  if (!from) return;
  let broken = false;
  to.on("error", () => {
    broken = true;
    from.resume();
  });
  from.on("data", (chunk: Buffer) => {
    tap(chunk);
    if (broken) return;
    if (!to.write(chunk)) {
      from.pause();
      to.once("drain", () => from.resume());
    }
  });
}

/** Wires the socket's events to short messages on our stderr. */
function wireSocketMessages(socket: PitwallSocket, say: (msg: string) => void): void {
  let wasOpen = false;
  let down = false;
  let rejections = 0;
  socket.on("open", () => {
    if (down) say(`reconnected to ${socket.currentUrl}; resending unacknowledged frames`);
    wasOpen = true;
    down = false;
  });
  socket.on("disconnect", (info) => {
    if (wasOpen && !down)
      say(
        `lost the connection to ${info.url} (${info.error?.message ?? `close ${info.code ?? ""} ${info.reason}`.trim()}); frames are kept and resent${info.nextUrl !== info.url ? `, trying ${info.nextUrl}` : ""}`,
      );
    down = true;
  });
  socket.on("rejected", (r) => {
    if (++rejections <= MAX_WARNINGS) say(`frame ${r.id ?? ""} rejected: ${r.code}: ${r.message}`);
  });
  socket.on("fatal", (err) => say(`reporting stopped: ${err.message}`));
}

/** `git rev-parse HEAD` in `cwd`; null outside a repository or without git. */
function gitHead(cwd: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile("git", ["rev-parse", "HEAD"], { cwd, timeout: 5000 }, (err, stdout) => {
      const sha = stdout?.trim();
      resolve(!err && sha && /^[0-9a-f]{40,64}$/.test(sha) ? sha : null);
    });
  });
}

/** Quotes an argument for display as a POSIX shell word when needed. */
function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) fail(`expected a non-negative integer, got '${value}'`, 2);
  return n;
}

function parseSeconds(value: string, max: number): number {
  const n = Number(value);
  if (!(n >= 0 && n <= max)) fail(`expected seconds between 0 and ${max}, got '${value}'`, 2);
  return n;
}

function parseStallAfter(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 5 || n > 7 * 86_400)
    fail(`--stall-after must be a whole number of seconds from 5 to 604800, got '${value}'`, 2);
  return n;
}
