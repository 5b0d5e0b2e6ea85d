/**
 * `npm test`: every test of the project, as CI runs them, in stages ordered by what they need:
 *   1. makes sure a Chromium is there (see scripts/lib/browser.ts),
 *   2. side by side, as they need nothing from each other: builds the dashboard when stale
 *      (integration and e2e tests serve the production build) and the vitest `unit` project (no
 *      build, no database),
 *   3. vitest `integration`: *.int.test.ts against one real PostgreSQL and the real server;
 *      meanwhile the e2e server boots and the e2e people are created (scripts/lib/e2e-server.ts),
 *   4. Playwright projects `fresh-install`, `app-first`, `app` and `app-last`: end-to-end tests in
 *      Chromium against the built app on a fresh database (two workers on a quiet machine, one
 *      when loaded: e2eWorkers), with `npm run lint` (ESLint, the import rules of .dependency-cruiser.cjs, prettier)
 *      beside it; without an e2e stage lint runs beside the build,
 *   5. vitest `slow`: *.slow.test.ts (real agent CLIs, python, anything over 30 s alone), then the
 *      Playwright `slow` project (*.slow.spec.ts and the axe checks; its own fresh database).
 * Integration, then e2e; PITWALL_TEST_SIDE_BY_SIDE=1 runs them side by side (each has its own
 * PostgreSQL, ports and data dir), e2e's output printed when integration is done. Not the default:
 * on a loaded 2-core machine timing-bound integration tests failed that way (docs/testing.md).
 * `npm test -- unit integration` runs only the named stages (lint, unit, integration, e2e, slow).
 * Prints each stage's wall time and pass/fail counts, then one closing line
 * "tests: N passed, N failed", and exits non-zero when anything failed.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { ensureChromium } from "./lib/browser";
import { buildIsStale } from "./lib/build";
import { startE2eServer, type E2eServer } from "./lib/e2e-server";

const projectDir = path.resolve(import.meta.dirname, "..");
const bin = (name: string) => path.join(projectDir, "node_modules", ".bin", name);
const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-test-report-"));
const log = (m: string) => console.log(`[test] ${m}`);

const STAGES = ["lint", "unit", "integration", "e2e", "slow"] as const;
type Stage = (typeof STAGES)[number];

/** What one stage did: wall time in seconds, test counts, and whether its runner failed. */
interface StageResult {
  name: Stage | "build" | "slow e2e";
  wallS: number;
  passed: number;
  failed: number;
  skipped: number;
  exitCode: number;
  note?: string;
}

/** Runs a command; resolves with its exit code. `capture` collects its output instead of printing it. */
function run(
  cmd: string,
  args: string[],
  opts: { env?: Record<string, string>; capture?: string[] } = {},
): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd: projectDir,
      stdio: opts.capture ? ["ignore", "pipe", "pipe"] : "inherit",
      env: { ...process.env, ...opts.env },
    });
    if (opts.capture) {
      const keep = (b: Buffer) => opts.capture!.push(b.toString());
      child.stdout!.on("data", keep);
      child.stderr!.on("data", keep);
    }
    child.on("error", (err) => {
      opts.capture?.push(String(err));
      resolve(1);
    });
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

function readJson<T>(file: string): T | null {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as T;
  } catch {
    return null;
  }
}

/**
 * What a stage's fixtures cost, from the lines test/support/test-costs.ts appends to the file
 * named by PITWALL_TEST_COSTS: e.g. "12 server boots (96 s), 70 database clones (8 s)".
 */
function costNote(file: string): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const sums = new Map<string, { n: number; ms: number }>();
  for (const line of text.split("\n").filter(Boolean)) {
    const { kind, ms } = JSON.parse(line) as { kind: string; ms: number };
    const s = sums.get(kind) ?? { n: 0, ms: 0 };
    sums.set(kind, { n: s.n + 1, ms: s.ms + ms });
  }
  const part = (kind: string, label: string) => {
    const s = sums.get(kind);
    return s ? `${s.n} ${label} (${(s.ms / 1000).toFixed(0)} s)` : `0 ${label}`;
  };
  return `${part("server-boot", "server boots")}, ${part("database-clone", "database clones")}`;
}

/** Runs one vitest project (`--project name`) and reads its counts from the JSON report. */
async function vitestProject(
  name: "unit" | "integration" | "slow",
  extraArgs: string[] = [],
): Promise<StageResult> {
  const json = path.join(reportDir, `vitest-${name}.json`);
  const costs = path.join(reportDir, `costs-${name}.jsonl`);
  const started = Date.now();
  log(`vitest project "${name}"`);
  const exitCode = await run(
    bin("vitest"),
    [
      "run",
      "--project",
      name,
      "--passWithNoTests",
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${json}`,
      ...extraArgs,
    ],
    { env: { PITWALL_TEST_COSTS: costs } },
  );
  const r = readJson<{
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
    numTodoTests: number;
  }>(json);
  return {
    name,
    wallS: (Date.now() - started) / 1000,
    passed: r?.numPassedTests ?? 0,
    failed: r?.numFailedTests ?? 0,
    skipped: (r?.numPendingTests ?? 0) + (r?.numTodoTests ?? 0),
    exitCode,
    note: name === "unit" ? undefined : costNote(costs),
  };
}

/** The machine's 1-minute load average at or below which the e2e stage takes two workers. */
const TWO_WORKER_MAX_LOAD = 8;

/**
 * How many Playwright workers the e2e stage gets: PITWALL_E2E_WORKERS when set; else two when the
 * machine is quiet enough (1-minute load average <= TWO_WORKER_MAX_LOAD; the integration stage
 * that just ended leaves 3-7 of it on an idle machine), one otherwise. Two workers keep both cores
 * busy (e2e 339 -> 253 s on a quiet machine); at load 15-25 they failed tests on time limits,
 * where one worker did not (docs/testing.md, 2026-12-06).
 */
function e2eWorkers(): { count: string; why: string } {
  if (process.env.PITWALL_E2E_WORKERS)
    return { count: process.env.PITWALL_E2E_WORKERS, why: " (PITWALL_E2E_WORKERS)" };
  const load = os.loadavg()[0]!;
  const quiet = load <= TWO_WORKER_MAX_LOAD && os.availableParallelism() >= 2;
  return {
    count: quiet ? "2" : "1",
    why: ` (load average ${load.toFixed(1)}, ${quiet ? "at or below" : "above"} ${TWO_WORKER_MAX_LOAD})`,
  };
}

/**
 * Runs Playwright projects (`e2e`: fresh-install, app-first, app and app-last, in that order;
 * `slow e2e`: the slow project, which brings fresh-install along as its dependency) and reads
 * their counts from the JSON report.
 */
async function playwright(
  name: "e2e" | "slow e2e",
  browserEnv: Record<string, string>,
  capture?: string[],
  serverEnv: Record<string, string> = {},
): Promise<StageResult> {
  const json = path.join(reportDir, `playwright-${name.replace(" ", "-")}.json`);
  const projects = name === "e2e" ? ["fresh-install", "app-first", "app", "app-last"] : ["slow"];
  // Specs that read database-wide state run before and after the others (playwright.config.ts).
  const workers = name === "e2e" ? e2eWorkers() : { count: "1", why: "" };
  const started = Date.now();
  log(
    `Playwright end-to-end tests (projects ${projects.join(", ")}; ${workers.count} worker(s)${workers.why})`,
  );
  const exitCode = await run(
    bin("playwright"),
    ["test", ...projects.map((p) => `--project=${p}`), "--reporter=list,json"],
    {
      env: {
        ...browserEnv,
        PLAYWRIGHT_JSON_OUTPUT_NAME: json,
        PITWALL_E2E_WORKERS: workers.count,
        ...serverEnv,
      },
      capture,
    },
  );
  const p = readJson<{
    stats: { expected: number; unexpected: number; flaky: number; skipped: number };
  }>(json);
  return {
    name,
    wallS: (Date.now() - started) / 1000,
    passed: p ? p.stats.expected + p.stats.flaky : 0,
    failed: p?.stats.unexpected ?? 0,
    skipped: p?.stats.skipped ?? 0,
    exitCode,
  };
}

/** `npm run lint`, its output kept for the end (it runs beside the unit tests); counts one failure when it fails. */
async function lint(): Promise<StageResult> {
  const started = Date.now();
  const output: string[] = [];
  const exitCode = await run("npm", ["run", "--silent", "lint"], { capture: output });
  const text = output.join("").trim();
  return {
    name: "lint",
    wallS: (Date.now() - started) / 1000,
    passed: 0,
    failed: 0,
    skipped: 0,
    exitCode,
    note: text,
  };
}

/** `next build` when the production build is missing or stale, its output kept for the end (it runs beside the unit tests). */
async function build(): Promise<StageResult> {
  const started = Date.now();
  if (!buildIsStale(projectDir))
    return {
      name: "build",
      wallS: 0,
      passed: 0,
      failed: 0,
      skipped: 0,
      exitCode: 0,
      note: "up to date",
    };
  log("building the dashboard (next build) while the unit tests run; its output follows them");
  const output: string[] = [];
  const exitCode = await run(bin("next"), ["build"], {
    env: { NEXT_TELEMETRY_DISABLED: "1" },
    capture: output,
  });
  const text = output.join("");
  // Print the build's log after the unit tests: all of it when it failed, its last lines otherwise.
  return {
    name: "build",
    wallS: (Date.now() - started) / 1000,
    passed: 0,
    failed: 0,
    skipped: 0,
    exitCode,
    note: exitCode === 0 ? text.split("\n").slice(-25).join("\n") : text,
  };
}

function parseStages(args: string[]): Set<Stage> {
  if (args.length === 0) return new Set(STAGES);
  for (const a of args)
    if (!STAGES.includes(a as Stage))
      throw new Error(`unknown stage "${a}"; choose from ${STAGES.join(", ")}`);
  return new Set(args as Stage[]);
}

function summaryLine(r: StageResult): string {
  const time = `${r.wallS.toFixed(1).padStart(7)} s`;
  if (r.name === "lint")
    return `  ${"lint".padEnd(12)}${time}  ${r.exitCode === 0 ? "ok" : `FAILED (exit ${r.exitCode})`}`;
  if (r.name === "build")
    return `  ${"build".padEnd(12)}${time}  ${r.exitCode === 0 ? (r.note === "up to date" ? "up to date" : "ok") : `FAILED (exit ${r.exitCode})`}`;
  const runner = r.exitCode !== 0 && r.failed === 0 ? `  (runner exit ${r.exitCode})` : "";
  const skipped = r.skipped ? `, ${r.skipped} skipped` : "";
  return `  ${r.name.padEnd(12)}${time}  ${r.passed} passed, ${r.failed} failed${skipped}${runner}${r.note ? `  ${r.note}` : ""}`;
}

async function main(): Promise<void> {
  const stages = parseStages(process.argv.slice(2));
  const started = Date.now();
  const results: StageResult[] = [];
  const needsBuild = stages.has("integration") || stages.has("e2e") || stages.has("slow");
  const chromium = stages.has("e2e") || stages.has("slow") ? ensureChromium(log) : null;
  const browserEnv: Record<string, string> = chromium ? { PITWALL_CHROMIUM: chromium } : {};

  // Lint needs nothing from the other stages. It runs beside the e2e stage when there is one (one
  // Playwright worker used under half of the two cores, docs/testing.md), so that the build and
  // integration have the cores to themselves; else first, beside the build and the unit tests.
  let lintRun: Promise<StageResult | null> | null = null;
  const startLint = () => (lintRun ??= stages.has("lint") ? lint() : Promise.resolve(null));
  if (!stages.has("e2e")) startLint();
  // The build and the unit tests need nothing from each other: side by side.
  const [built, unit] = await Promise.all([
    needsBuild ? build() : Promise.resolve(null),
    stages.has("unit") ? vitestProject("unit") : Promise.resolve(null),
  ]);
  if (built?.note && built.note !== "up to date")
    console.log(
      `\n[test] next build output${built.exitCode === 0 ? " (last lines)" : ""}:\n${built.note}`,
    );
  if (built) results.push({ ...built, note: built.note === "up to date" ? built.note : undefined });
  if (unit) results.push(unit);
  let lintTaken = false;
  const takeLint = async () => {
    if (lintTaken) return;
    lintTaken = true;
    const linted = await startLint();
    if (!linted) return;
    if (linted.note) console.log(`\n[test] npm run lint output:\n${linted.note}`);
    results.push({ ...linted, note: undefined });
  };

  const buildOk = !built || built.exitCode === 0;
  let beforeSlowS: number | null = null;
  let e2eServer: E2eServer | null = null;
  const sideBySide =
    buildOk &&
    stages.has("integration") &&
    stages.has("e2e") &&
    process.env.PITWALL_TEST_SIDE_BY_SIDE === "1";
  if (sideBySide) {
    log("integration and e2e side by side; e2e's output follows integration's");
    startLint();
    const e2eOutput: string[] = [];
    const [integration, e2e] = await Promise.all([
      vitestProject("integration"),
      playwright("e2e", browserEnv, e2eOutput),
    ]);
    console.log(`\n[test] Playwright e2e output:\n${e2eOutput.join("")}`);
    results.push(integration, e2e);
  }
  for (const stage of ["integration", "e2e", "slow"] as const) {
    if (stage === "e2e") startLint();
    if (stage === "slow") await takeLint();
    if (!stages.has(stage)) continue;
    if (sideBySide && stage !== "slow") continue;
    if (stage === "slow") beforeSlowS = (Date.now() - started) / 1000;
    if (!buildOk) {
      results.push({
        name: stage,
        wallS: 0,
        passed: 0,
        failed: 0,
        skipped: 0,
        exitCode: 1,
        note: "not run: the build failed",
      });
      continue;
    }
    if (stage === "e2e") {
      // The server booted during integration, when up; else Playwright starts one as usual.
      const serverEnv = (await e2eServer?.ready) ?? {};
      if (e2eServer && !serverEnv.PITWALL_E2E_REUSE_SERVER) {
        log(
          `the e2e server started early did not come up; Playwright starts its own:\n${e2eServer.stderr()}`,
        );
        await e2eServer.stop();
      }
      results.push(await playwright("e2e", browserEnv, undefined, serverEnv));
      await e2eServer?.stop();
      continue;
    }
    if (stage === "integration" && stages.has("e2e")) {
      // Boot the e2e server (embedded PostgreSQL, migrations, Next) and create the e2e people now,
      // beside integration: that took 30-60 s at the start of the e2e stage (docs/testing.md).
      e2eServer = startE2eServer(browserEnv);
    }
    results.push(await vitestProject(stage));
    if (stage === "slow") results.push(await playwright("slow e2e", browserEnv));
  }

  await takeLint();
  const passed = results.reduce((n, r) => n + r.passed, 0);
  let failed = results.reduce((n, r) => n + r.failed, 0);
  const runnerFailed = results.some((r) => r.exitCode !== 0);
  if (failed === 0 && runnerFailed) failed = 1; // a runner (or lint) failed outside any test
  console.log(
    `\n[test] summary (wall time per stage; build beside unit, ${stages.has("e2e") ? "lint beside e2e" : "lint beside them"}${sideBySide ? ", e2e beside integration" : ""})`,
  );
  for (const r of results) console.log(summaryLine(r));
  if (beforeSlowS !== null)
    console.log(`  ${"before slow".padEnd(12)}${beforeSlowS.toFixed(1).padStart(7)} s`);
  console.log(`  ${"total".padEnd(12)}${((Date.now() - started) / 1000).toFixed(1).padStart(7)} s`);
  console.log(`tests: ${passed} passed, ${failed} failed`);
  process.exit(runnerFailed ? 1 : 0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
