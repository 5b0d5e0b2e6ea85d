/**
 * `npm test`: every test of the project, as CI runs them.
 *   1. makes sure a Chromium is there (see scripts/lib/browser.ts),
 *   2. builds the dashboard when stale (integration and e2e tests serve the production build),
 *   3. vitest: unit + integration tests against a real, fresh PostgreSQL and the real server,
 *   4. Playwright: end-to-end tests in Chromium against the built app on a fresh database.
 * Prints one closing line "tests: N passed, N failed" and exits non-zero when anything failed.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureChromium } from "./lib/browser";
import { ensureBuild } from "./lib/build";

const projectDir = path.resolve(import.meta.dirname, "..");
const bin = (name: string) => path.join(projectDir, "node_modules", ".bin", name);
const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-test-report-"));

function run(cmd: string, args: string[], env: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: projectDir, stdio: "inherit", env: { ...process.env, ...env } });
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

async function main(): Promise<void> {
  const chromium = ensureChromium((m) => console.log(`[test] ${m}`));
  const browserEnv: Record<string, string> = chromium ? { PITWALL_CHROMIUM: chromium } : {};

  // Integration and e2e tests serve the production build; build it once, up front.
  await ensureBuild(projectDir, (m) => console.log(`[test] ${m}`));

  const vitestJson = path.join(reportDir, "vitest.json");
  const vitestCode = await run(bin("vitest"), ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${vitestJson}`]);

  const pwJson = path.join(reportDir, "playwright.json");
  const pwCode = await run(bin("playwright"), ["test", "--reporter=list,json"], { ...browserEnv, PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson });

  const v = readJson<{ numPassedTests: number; numFailedTests: number }>(vitestJson);
  const p = readJson<{ stats: { expected: number; unexpected: number; flaky: number } }>(pwJson);
  const passed = (v?.numPassedTests ?? 0) + (p ? p.stats.expected + p.stats.flaky : 0);
  let failed = (v?.numFailedTests ?? 0) + (p?.stats.unexpected ?? 0);
  if (failed === 0 && (vitestCode !== 0 || pwCode !== 0)) failed = 1; // a runner failed outside any test
  console.log(`\nvitest exit ${vitestCode}, playwright exit ${pwCode}`);
  console.log(`tests: ${passed} passed, ${failed} failed`);
  process.exit(vitestCode !== 0 || pwCode !== 0 ? 1 : 0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
