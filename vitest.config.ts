import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["**/*.test.ts"],
    exclude: ["node_modules/**", ".venv-test/**", "build/**", ".next/**", ".next-*/**", ".data-demo/**", "e2e/**", "generated/**", ".data/**"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 90_000,
    // Integration tests start real servers and databases; two cores are all we have.
    maxWorkers: 2,
  },
});
