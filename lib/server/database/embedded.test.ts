import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";

import { readLiveConnection, resolveDataDir } from "./embedded";

const isRoot = process.getuid?.() === 0;

function recorder() {
  const warnings: string[] = [];
  return { log: { info: () => undefined, warn: (m: string) => warnings.push(m) }, warnings };
}

describe("resolveDataDir", () => {
  test("uses <project>/.data when every parent folder is traversable", async () => {
    const base = await fs.mkdtemp(path.join(os.tmpdir(), "pw-open-"));
    await fs.chmod(base, 0o755);
    const project = path.join(base, "checkout");
    const { log, warnings } = recorder();
    expect(await resolveDataDir(project, undefined, log)).toBe(path.join(project, ".data"));
    expect(warnings).toEqual([]);
  });

  test("honours PITWALL_DATA_DIR", async () => {
    const wanted = path.join(os.tmpdir(), "pw-explicit-data");
    expect(await resolveDataDir("/irrelevant", wanted, recorder().log)).toBe(wanted);
  });

  test.runIf(isRoot)(
    "as root, falls back to the temp dir when a parent is mode 700 (a checkout under /root), and says so",
    async () => {
      const home = await fs.mkdtemp(path.join(os.tmpdir(), "pw-home-"));
      await fs.chmod(home, 0o700);
      const project = path.join(home, "src", "pitwall");
      const { log, warnings } = recorder();
      const dir = await resolveDataDir(project, undefined, log);
      expect(dir.startsWith(path.join(os.tmpdir(), "pitwall-data-"))).toBe(true);
      expect(warnings.join("\n")).toContain("not reachable by the 'postgres' user");
      // Stable per project path, so restarts find the same data.
      expect(await resolveDataDir(project, undefined, recorder().log)).toBe(dir);
    },
  );
});

describe("readLiveConnection", () => {
  test("ignores a missing, corrupt or dead connection file", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "pw-conn-"));
    expect(await readLiveConnection(dir)).toBeNull();
    await fs.writeFile(path.join(dir, "connection.json"), "{oops");
    expect(await readLiveConnection(dir)).toBeNull();
    // A pid that cannot exist (above the kernel's pid_max).
    await fs.writeFile(
      path.join(dir, "connection.json"),
      JSON.stringify({ url: "postgresql://x@127.0.0.1:1/x", port: 1, pid: 2 ** 30 }),
    );
    expect(await readLiveConnection(dir)).toBeNull();
  });
});
