/**
 * Bench scenario `python-outage`: issue 24's "a 10-minute Pitwall outage loses nothing". A real
 * Python job (the stdlib client, spool on, default backoff) logs 30 metric keys and one event per
 * step at a steady rate against the production server; the server is stopped (SIGTERM, nothing
 * listening on its port) for the outage, started again on the same port and database, and the job
 * goes on, then finishes. Checks, on the database: every step's event exactly once and 30 points
 * per step (missing / duplicated counts printed; FAIL makes the scenario fail). Figures: steps and
 * points logged, peak frames held and spool size during the outage, how long after the server's
 * return the backlog was stored, load average.
 *
 * Sizes: `--quick` a 30 s outage (20 s up before and after), `--full` 600 s (60 s); `--outage-s N`, `--rate N` (steps/s, default
 * 20) and `--up-s N` (before and after the outage) override. Run alone: `npx tsx scripts/bench/python-outage.ts --outage-s 600` (~12 min).
 * Skipped with a note when python3 is missing.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { parseArgs } from "node:util";

import {
  fmt,
  fmtInt,
  isMain,
  onCleanup,
  projectDir,
  runStandalone,
  sleep,
  startBenchEnvironment,
  startServerProcess,
  type Scenario,
  type ScenarioOptions,
} from "./support";

const KEYS_PER_STEP = 30;

const JOB = `
import json, os, sys, time
import pitwall
KEYS = ["m/k{:02d}".format(i) for i in range(${KEYS_PER_STEP})]
rate = float(os.environ["RATE"])
duration = float(os.environ["DURATION_S"])
pitwall.init(kind="training", name="python outage soak", key=os.environ["RUN_KEY"])
pw = pitwall.current_run()._pw
folder = pw.spool_folder

def spool_bytes():
    try:
        return sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
    except OSError:
        return 0

t0 = time.monotonic()
step = 0
last = t0
while True:
    now = time.monotonic()
    if now - t0 >= duration:
        break
    due = int((now - t0) * rate)
    while step <= due:
        pitwall.log({k: step + i / 100 for i, k in enumerate(KEYS)}, step=step)
        pitwall.event("step {}".format(step))
        step += 1
    if now - last >= 5:
        last = now
        s = pw.stats()
        print(json.dumps({"t": round(now - t0, 1), "steps": step, "queued": s["queued"], "dropped": s["dropped"],
                          "spoolBytes": spool_bytes(), "downS": s["down_s"]}), flush=True)
    time.sleep(0.01)
ended = time.monotonic()
ok = pitwall.finish(flush_timeout_s=900)
s = pw.stats()
print(json.dumps({"done": True, "ok": ok, "steps": step, "flushS": round(time.monotonic() - ended, 1),
                  "dropped": s["dropped"], "rejected": s["rejected"]}), flush=True)
`;

interface StatsLine {
  t: number;
  steps: number;
  queued: number;
  dropped: number;
  spoolBytes: number;
  downS: number | null;
}
interface DoneLine {
  done: true;
  ok: boolean;
  steps: number;
  flushS: number;
  dropped: number;
  rejected: number;
}

const loadavg = () =>
  os
    .loadavg()
    .map((x) => fmt(x, 1))
    .join(" ");

async function pythonOutage({ full, log }: ScenarioOptions): Promise<void> {
  if (spawnSync("python3", ["--version"]).status !== 0) {
    log("python-outage: skipped (no python3)");
    return;
  }
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      "outage-s": { type: "string" },
      "up-s": { type: "string" },
      rate: { type: "string" },
    },
    strict: false,
    allowPositionals: true,
  });
  const outageS = Number(values["outage-s"]) > 0 ? Number(values["outage-s"]) : full ? 600 : 30;
  const rate = Number(values.rate) > 0 ? Number(values.rate) : 20;
  // Seconds the job runs before the outage and after the server's return.
  const UP_S = Number(values["up-s"]) > 0 ? Number(values["up-s"]) : full ? 60 : 20;
  const env = await startBenchEnvironment({ server: true, log });
  const first = env.server!;
  const port = first.port;
  const spoolRoot = await fsp.mkdtemp(path.join(os.tmpdir(), "pitwall-outage-spool-"));
  onCleanup("spool folder", () => fsp.rm(spoolRoot, { recursive: true, force: true }));
  const jobFile = path.join(spoolRoot, "job.py");
  await fsp.writeFile(jobFile, JOB);
  const key = `outage-soak-${randomUUID()}`;
  const durationS = UP_S + outageS + UP_S;
  log(
    `job: ${rate} steps/s x (${KEYS_PER_STEP} keys + 1 event) for ${durationS} s; server down from t=${UP_S} s for ${outageS} s; ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "?"}), loadavg ${loadavg()}`,
  );

  const child = spawn("python3", [jobFile], {
    cwd: spoolRoot,
    env: {
      ...process.env,
      PYTHONPATH: path.join(projectDir, "clients", "python"),
      PYTHONDONTWRITEBYTECODE: "1",
      PITWALL_URL: first.url,
      PITWALL_TOKEN: env.token,
      PITWALL_SPOOL_DIR: path.join(spoolRoot, "spool"),
      RUN_KEY: key,
      RATE: String(rate),
      DURATION_S: String(durationS),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  onCleanup("python job", async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  let latest: StatsLine | null = null;
  let peak = { queued: 0, spoolBytes: 0 };
  let done: DoneLine | null = null;
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    let v: StatsLine | DoneLine;
    try {
      v = JSON.parse(line) as StatsLine | DoneLine;
    } catch {
      return;
    }
    if ("done" in v) done = v;
    else {
      latest = v;
      peak = {
        queued: Math.max(peak.queued, v.queued),
        spoolBytes: Math.max(peak.spoolBytes, v.spoolBytes),
      };
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));

  await sleep(UP_S * 1000);
  const runId = (await env.pool.query<{ id: string }>(`SELECT id FROM "Run" WHERE key = $1`, [key]))
    .rows[0]?.id;
  if (!runId) throw new Error(`the run did not arrive in the first ${UP_S} s:\n${stderr}`);
  await first.stop();
  const downAt = Date.now();
  log(`t=${UP_S} s: server stopped (loadavg ${loadavg()})`);
  const mid = setInterval(() => {
    const l = latest as StatsLine | null;
    if (l)
      log(
        `  outage +${fmt((Date.now() - downAt) / 1000, 0)} s: ${fmtInt(l.steps)} steps logged, ${fmtInt(l.queued)} frames held, spool ${fmt(l.spoolBytes / 1e6, 1)} MB, dropped ${l.dropped} (loadavg ${loadavg()})`,
      );
  }, 60_000);
  await sleep(outageS * 1000);
  clearInterval(mid);
  const stepsAtReturn = (latest as StatsLine | null)?.steps ?? 0;
  const second = await startServerProcess(env.databaseUrl, () => undefined, port);
  onCleanup("restarted server", () => second.stop());
  const backAt = Date.now();
  log(
    `server back on port ${port} after ${fmt((backAt - downAt) / 1000, 0)} s down; ${fmtInt(stepsAtReturn)} steps logged so far, peak ${fmtInt(peak.queued)} frames held, spool ${fmt(peak.spoolBytes / 1e6, 1)} MB`,
  );
  // The backlog is stored once every event logged before the return is in the database.
  let caughtUpS: number | null = null;
  while (caughtUpS === null && Date.now() - backAt < 900_000) {
    const n = (
      await env.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "RunEvent" WHERE "runId" = $1 AND message LIKE 'step %'`,
        [runId],
      )
    ).rows[0]!.n;
    if (n >= stepsAtReturn) caughtUpS = (Date.now() - backAt) / 1000;
    else await sleep(1000);
  }
  const code = await exited;
  const end = done as DoneLine | null;
  if (code !== 0 || !end) throw new Error(`the job exited with ${code}:\n${stderr.slice(-4000)}`);

  const events = (
    await env.pool.query<{ distinct: number; total: number; dup: number }>(
      `SELECT count(DISTINCT message)::int AS distinct, count(*)::int AS total,
              (count(*) - count(DISTINCT message))::int AS dup
         FROM "RunEvent" WHERE "runId" = $1 AND message LIKE 'step %'`,
      [runId],
    )
  ).rows[0]!;
  const points = (
    await env.pool.query<{ n: number; steps: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT step)::int AS steps FROM "MetricPoint" WHERE "runId" = $1`,
      [runId],
    )
  ).rows[0]!;
  const status = (
    await env.pool.query<{ status: string }>(`SELECT status FROM "Run" WHERE id = $1`, [runId])
  ).rows[0]!.status;
  const missing = end.steps - events.distinct;
  const pass =
    end.ok &&
    end.dropped === 0 &&
    missing === 0 &&
    events.dup === 0 &&
    points.n === end.steps * KEYS_PER_STEP &&
    points.steps === end.steps &&
    status === "succeeded";
  log(
    `python-outage: ${fmtInt(end.steps)} steps = ${fmtInt(end.steps * KEYS_PER_STEP)} points + ${fmtInt(end.steps)} events, ${fmt(outageS / 60, 1)}-minute outage`,
  );
  log(
    `  stored      ${fmtInt(points.n)} points over ${fmtInt(points.steps)} steps; events ${fmtInt(events.distinct)} distinct, ${events.dup} duplicated, ${missing} missing; run ${status}`,
  );
  log(
    `  outage      peak ${fmtInt(peak.queued)} frames held, spool ${fmt(peak.spoolBytes / 1e6, 1)} MB on disk, dropped ${end.dropped}, rejected ${end.rejected}`,
  );
  log(
    `  catch-up    backlog stored ${caughtUpS === null ? "never (15 min)" : `${fmt(caughtUpS, 1)} s`} after the server's return; final flush ${fmt(end.flushS, 1)} s; loadavg now ${loadavg()}`,
  );
  log(`  ${pass ? "PASS" : "FAIL"}: nothing lost, nothing stored twice (target)`);
  if (!pass) throw new Error("FAIL: the outage lost or duplicated data (see above)");
}

export const scenario: Scenario = {
  name: "python-outage",
  description:
    "Python job (30 keys/step, spool) through a Pitwall outage (30 s quick, 600 s full): every step stored once",
  run: pythonOutage,
};

if (isMain(import.meta.url)) await runStandalone(scenario);
