import path from "node:path";
import { defineConfig } from "vitest/config";

// Tests are split by what they need, told apart by the file name (see CONTRIBUTING.md):
//   unit         x.test.ts       no PostgreSQL, no server, no child process; no global setup
//   integration  x.int.test.ts   one PostgreSQL for the run (global setup), real server, child processes
//   slow         x.slow.test.ts  external programs (agent CLIs, python) or > 30 s alone
// `npx vitest run some/file.int.test.ts` picks the right project by name; `npm test` runs the
// projects one after another (scripts/test.ts).
const notTests = [
  "node_modules/**",
  ".venv-test/**",
  "build/**",
  ".next/**",
  ".next-*/**",
  ".data-demo/**",
  "e2e/**",
  "generated/**",
  ".data/**",
];

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 90_000,
    // Integration tests start real servers and databases; two cores are all we have.
    // scripts/test.ts raises this for the unit project, which starts nothing.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["**/*.test.ts"],
          exclude: [...notTests, "**/*.int.test.ts", "**/*.slow.test.ts"],
          // Unit tests share no state through modules (checked with shuffled runs), so one module
          // graph per worker is safe: 46 -> 15 s for the project on a busy 2-core machine.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["**/*.int.test.ts"],
          exclude: notTests,
          globalSetup: ["test/support/global-setup.ts"],
          // A fresh process per file stays (isolate: true): a shared one (tried 2026-12-06) cut
          // import time 106 -> 23 s but not the wall time, and leaked state between files (a
          // pg type parser turned int8 into numbers for a later file; pools left open).
        },
      },
      {
        extends: true,
        test: {
          name: "slow",
          include: ["**/*.slow.test.ts"],
          exclude: notTests,
          globalSetup: ["test/support/global-setup.ts"],
        },
      },
    ],
  },
});
