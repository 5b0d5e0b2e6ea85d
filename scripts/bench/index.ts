/**
 * `npm run bench [names…] [--quick | --full]`: the benchmark suite. Discovers every scenario
 * module in scripts/bench/ (a file exporting `scenario = { name, description, run }`, see
 * support.ts) and runs the named ones (default: all) one after another, each on its own fresh
 * PostgreSQL and server. `--quick` (default) sizes fit in ~10 minutes in all; `--full` runs the
 * large sizes (10M points, 40k runs …). Every scenario prints its figures with their anchor or
 * target beside them; nothing is asserted. Exit 1 when a scenario fails (e.g. a FAIL check).
 * `--list` prints the scenarios.
 */
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

import { fmt, installExitHandlers, runCleanup, shutdown, type Scenario } from "./support";

const NOT_SCENARIOS = new Set(["index.ts", "support.ts"]);

async function discover(): Promise<Scenario[]> {
  const files = fs
    .readdirSync(import.meta.dirname)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !NOT_SCENARIOS.has(f))
    .sort();
  const found: Scenario[] = [];
  for (const f of files) {
    const mod = (await import(pathToFileURL(path.join(import.meta.dirname, f)).href)) as {
      scenario?: Scenario;
    };
    if (mod.scenario && typeof mod.scenario.run === "function") found.push(mod.scenario);
  }
  return found;
}

async function main(): Promise<never> {
  const args = process.argv.slice(2);
  const full = args.includes("--full");
  installExitHandlers(full ? 4 * 3600 : 1800);
  const all = await discover();
  if (args.includes("--list")) {
    for (const s of all) console.log(`${s.name.padEnd(12)} ${s.description}`);
    return shutdown(0);
  }
  // Names are the positional arguments; flags (and their values, like `--workers 4`) belong to scenarios.
  const names = args.filter(
    (a, i) =>
      !a.startsWith("-") &&
      !(args[i - 1]?.startsWith("--") && !["--full", "--quick"].includes(args[i - 1]!)),
  );
  const unknown = names.filter((n) => !all.some((s) => s.name === n));
  if (unknown.length) {
    console.error(
      `unknown scenario(s): ${unknown.join(", ")}; available: ${all.map((s) => s.name).join(", ")}`,
    );
    return shutdown(2);
  }
  const chosen = names.length ? all.filter((s) => names.includes(s.name)) : all;
  console.log(
    `Pitwall bench suite (${full ? "--full" : "--quick"}) on ${new Date().toISOString()}: ${chosen.map((s) => s.name).join(", ")}`,
  );
  const failed: string[] = [];
  for (const s of chosen) {
    console.log(`\n=== ${s.name}: ${s.description}`);
    const t0 = performance.now();
    try {
      await s.run({ full, log: (line) => console.log(line) });
    } catch (err) {
      failed.push(s.name);
      console.error(
        `[bench] ${s.name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      );
    }
    await runCleanup();
    console.log(`=== ${s.name} took ${fmt((performance.now() - t0) / 1000, 0)} s`);
  }
  if (failed.length) console.error(`\nfailed: ${failed.join(", ")}`);
  return shutdown(failed.length ? 1 : 0);
}

await main();
