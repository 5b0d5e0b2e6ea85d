import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";

import { fixturesDir } from "@/test/support/fixtures";

// The test-file naming convention (CONTRIBUTING.md "Tests") decides which vitest project runs a
// file and what that project provides; these checks keep new files honest about what they need.

const repoRoot = path.resolve(import.meta.dirname, "..");
const SKIP = /^(node_modules|generated|\.next.*|\.data.*|test-results|playwright-report|\.git)$/;

/** Repository-relative paths of files under `dir` whose name matches `name`. */
function filesUnder(dir: string, name: RegExp): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(repoRoot, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!SKIP.test(entry.name) && rel !== "test/fixtures") out.push(...filesUnder(rel, name));
    } else if (name.test(entry.name)) out.push(rel);
  }
  return out;
}

const testFiles = filesUnder("", /\.test\.ts$/);
const unitFiles = testFiles.filter(
  (f) => !/\.(int|slow)\.test\.ts$/.test(f) && f !== "test/conventions.test.ts",
);
const read = (rel: string) => fs.readFileSync(path.join(repoRoot, rel), "utf8");

describe("test file names say what a test needs", () => {
  test("unit tests (x.test.ts) start no PostgreSQL, no server and no child process", () => {
    const needsMore =
      /test\/support\/(db|server|shared-server|ingest|live|people|seed-runs|worker-socket|browser|agents\/|exposition-server)|node:child_process|startEmbeddedPostgres|inject\("pgAdminUrl"\)/;
    expect(unitFiles.length).toBeGreaterThan(50);
    expect(unitFiles.filter((f) => needsMore.test(read(f)))).toEqual([]);
  });

  test("tests of the real agent CLIs are slow tests", () => {
    const realCli = testFiles.filter((f) => f.includes(".real-cli."));
    expect(realCli.length).toBeGreaterThan(0);
    expect(realCli.filter((f) => !f.endsWith(".slow.test.ts"))).toEqual([]);
  });
});

describe("fixtures live in the repository", () => {
  test("every fixture folder says where its files came from (SOURCE.txt or SCHEMA.md)", () => {
    const folders = fs
      .readdirSync(fixturesDir, { withFileTypes: true })
      .filter((d) => d.isDirectory());
    expect(folders.length).toBeGreaterThan(0);
    const unexplained = folders.filter(
      (d) =>
        !["SOURCE.txt", "SCHEMA.md"].some((n) => fs.existsSync(path.join(fixturesDir, d.name, n))),
    );
    expect(unexplained.map((d) => d.name)).toEqual([]);
  });

  test("no test, spec or client test reads fixtures from outside the repository", () => {
    const readers = [
      ...testFiles,
      ...filesUnder("e2e", /\.ts$/),
      ...filesUnder("test/support", /\.ts$/),
      ...filesUnder("lib/importers", /^testing\.ts$/),
      ...filesUnder("clients", /\.py$/),
    ];
    const outside = /\.\.\/shared\/fixtures|"shared", "fixtures"|PITWALL_FIXTURES/;
    expect(
      readers.filter((f) => f !== "test/conventions.test.ts" && outside.test(read(f))),
    ).toEqual([]);
  });
});
