import { spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { createTestDatabase } from "@/test/support/db";
import { startTestServer, type TestServer } from "@/test/support/server";

// Pitwall serves the Python client's wheel (built by `npm run build` into build/python) without
// sign-in, and pip installs it from the server: the way a GPU host on the same network gets it.

const projectDir = path.resolve(import.meta.dirname, "../..");
let server: TestServer;
let dir: string;

beforeAll(async () => {
  server = await startTestServer({ databaseUrl: await createTestDatabase() });
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-py-wheel-"));
});

afterAll(async () => {
  await server?.stop();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe("python wheel served by Pitwall", () => {
  test(
    "GET /python/pitwall.whl needs no sign-in and redirects to the wheel; pip installs it from the server",
    { timeout: 180_000 },
    async () => {
      const version = (
        JSON.parse(await fs.readFile(path.join(projectDir, "package.json"), "utf8")) as {
          version: string;
        }
      ).version;
      const wheelName = `pitwall-${version}-py3-none-any.whl`;
      const redirect = await fetch(`${server.url}/python/pitwall.whl`, { redirect: "manual" });
      expect(redirect.status).toBe(302);
      expect(redirect.headers.get("location")).toBe(`/python/${wheelName}`);
      const wheel = await fetch(`${server.url}/python/${wheelName}`);
      expect(wheel.status).toBe(200);
      expect(wheel.headers.get("content-type")).toBe("application/zip");
      const bytes = Buffer.from(await wheel.arrayBuffer());
      expect(bytes.subarray(0, 2).toString()).toBe("PK");
      expect((await fetch(`${server.url}/python/pitwall-9.9.9-py3-none-any.whl`)).status).toBe(404);
      expect((await fetch(`${server.url}/python/..%2Fpackage.json`)).status).toBe(404);
      const index = await fetch(`${server.url}/python`);
      expect(index.status).toBe(200);
      expect(await index.text()).toContain(`href="/python/${wheelName}"`);

      // pip, offline, from the server alone: the wheel URL, and the find-links page.
      for (const [target, args] of [
        [path.join(dir, "by-url"), [`${server.url}/python/${wheelName}`]],
        [path.join(dir, "by-find-links"), ["--find-links", `${server.url}/python`, "pitwall"]],
      ] as const) {
        const pip = spawnSync(
          "python3",
          [
            "-m",
            "pip",
            "install",
            "--no-index",
            "--no-deps",
            "--quiet",
            "--target",
            target,
            ...args,
          ],
          { encoding: "utf8" },
        );
        expect(pip.status, pip.stderr).toBe(0);
        const check = spawnSync(
          "python3",
          [
            "-c",
            "import json, os, pitwall, pitwall_scrape; print(json.dumps({'v': pitwall.__version__, 'file': pitwall.__file__, 'typed': os.path.exists(os.path.join(os.path.dirname(pitwall.__file__), 'py.typed'))}))",
          ],
          {
            encoding: "utf8",
            cwd: dir,
            env: { ...process.env, PYTHONPATH: target, PYTHONDONTWRITEBYTECODE: "1" },
          },
        );
        expect(check.status, check.stderr).toBe(0);
        const info = JSON.parse(check.stdout) as { v: string; file: string; typed: boolean };
        expect(info).toEqual({
          v: version,
          file: path.join(target, "pitwall", "__init__.py"),
          typed: true,
        });
        const files = await fs.readdir(path.join(target, "pitwall"));
        expect(files).toEqual(
          expect.arrayContaining([
            "__init__.py",
            "__main__.py",
            "tqdm.py",
            "transformers.py",
            "py.typed",
          ]),
        );
      }
    },
  );
});
